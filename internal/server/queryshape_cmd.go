package server

import (
	"hash/maphash"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/queryshape"
)

// shapeForm is how the query statistics shape a command (or, for update
// and delete, each of its statements): the fields its queryShape keeps,
// in this order. Each command that has one names it in its descriptor
// (command.go).
type shapeForm struct {
	// filter is the field holding its filter ("" for none: aggregate).
	filter string
	// proj is the field holding its projection, kept with its sort (""
	// for neither).
	proj string
	// limitSkip: its limit and skip, when not zero.
	limitSkip bool
	// key: distinct's key.
	key bool
	// update is the field holding its update ("" for none), flags the
	// boolean fields kept when true.
	update string
	flags  []string
	// pipeline: aggregate's pipeline.
	pipeline bool
	// perStatement: each statement of the command's stmts array is
	// shaped and counted (update, delete); stmtLimit keeps a delete
	// statement's limit.
	perStatement bool
	stmtLimit    bool
}

// commandShape returns the queryShape of a command its descriptor shapes
// whole (find, aggregate, count, distinct, findAndModify; nil for the
// others) and its representativeQuery: the same fields with their values,
// as the command gave them.
func commandShape(db string, cmd bsoncore.Document, name, coll string) (shape, rep bsoncore.Document) {
	form := lookupCommand(name).shape
	if form == nil || form.perStatement {
		return nil, nil
	}
	sb := bsoncore.NewDocumentBuilder().
		AppendDocument("cmdNs", bsoncore.NewDocumentBuilder().AppendString("db", db).AppendString("coll", coll).Build()).
		AppendString("command", name)
	rb := bsoncore.NewDocumentBuilder()
	if form.filter != "" {
		f, _ := cmd.Lookup(form.filter).DocumentOK()
		if f == nil {
			f = emptyDoc()
		}
		sb.AppendDocument("filter", queryshape.Filter(f))
		rb.AppendDocument("filter", f)
	}
	if form.proj != "" {
		appendSortProj(cmd, form.proj, sb, rb)
	}
	if form.limitSkip {
		appendShapeNumber(cmd, "limit", sb, rb)
		appendShapeNumber(cmd, "skip", sb, rb)
	}
	if form.key {
		if k, ok := cmd.Lookup("key").StringValueOK(); ok {
			sb.AppendString("key", k)
			rb.AppendString("key", k)
		}
	}
	appendUpdateFlags(cmd, form, sb, rb)
	if form.pipeline {
		arr, ok := cmd.Lookup("pipeline").ArrayOK()
		if !ok {
			return nil, nil
		}
		sb.AppendArray("pipeline", queryshape.Pipeline(docs(arr)))
		rb.AppendArray("pipeline", arr)
	}
	for _, k := range []string{"hint", "collation"} {
		if v := cmd.Lookup(k); v.Type != 0 {
			rb.AppendValue(k, v)
		}
	}
	return sb.Build(), rb.Build()
}

// appendUpdateFlags adds the update (its structure in the shape) and the
// flags that are true.
func appendUpdateFlags(cmd bsoncore.Document, form *shapeForm, sb, rb *bsoncore.DocumentBuilder) {
	if form.update == "" {
		return
	}
	if u := cmd.Lookup(form.update); u.Type != 0 {
		sb.AppendValue("update", queryshape.Update(u))
		rb.AppendValue("update", u)
	}
	for _, k := range form.flags {
		if v, ok := cmd.Lookup(k).BooleanOK(); ok && v {
			sb.AppendBoolean(k, true)
			rb.AppendBoolean(k, true)
		}
	}
}

// appendSortProj adds sort (kept as given: it has no literals) and the
// projection (under projKey in the command) to both documents.
func appendSortProj(cmd bsoncore.Document, projKey string, sb, rb *bsoncore.DocumentBuilder) {
	if s, ok := cmd.Lookup("sort").DocumentOK(); ok && len(s) > 5 {
		sb.AppendDocument("sort", s)
		rb.AppendDocument("sort", s)
	}
	if p, ok := cmd.Lookup(projKey).DocumentOK(); ok && len(p) > 5 {
		sb.AppendDocument("projection", queryshape.Projection(p))
		rb.AppendDocument("projection", p)
	}
}

// appendShapeNumber adds a limit or skip: "?number" in the shape, the value in
// the representative query. A zero limit is no limit.
func appendShapeNumber(cmd bsoncore.Document, k string, sb, rb *bsoncore.DocumentBuilder) {
	v := cmd.Lookup(k)
	if n, ok := asInt64(v); ok && n != 0 {
		sb.AppendString(k, "?number")
		rb.AppendValue(k, v)
	}
}

// docs returns the documents of an array.
func docs(a bsoncore.Array) []bsoncore.Document {
	vals, _ := a.Values()
	out := make([]bsoncore.Document, 0, len(vals))
	for _, v := range vals {
		if d, ok := v.DocumentOK(); ok {
			out = append(out, d)
		}
	}
	return out
}

// writeStatementShape is the queryShape of one update ({q, u, multi,
// upsert}) or delete ({q, limit}) statement and its representative query.
func writeStatementShape(db, coll, name string, stmt bsoncore.Document) (shape, rep bsoncore.Document) {
	form := lookupCommand(name).shape
	sb := bsoncore.NewDocumentBuilder().
		AppendDocument("cmdNs", bsoncore.NewDocumentBuilder().AppendString("db", db).AppendString("coll", coll).Build()).
		AppendString("command", name)
	rb := bsoncore.NewDocumentBuilder()
	q, _ := stmt.Lookup(form.filter).DocumentOK()
	if q == nil {
		q = emptyDoc()
	}
	sb.AppendDocument("filter", queryshape.Filter(q))
	rb.AppendDocument("filter", q)
	appendUpdateFlags(stmt, form, sb, rb)
	if n, ok := asInt64(stmt.Lookup("limit")); ok && form.stmtLimit {
		sb.AppendString("limit", "?number")
		rb.AppendInt64("limit", n)
	}
	if v := stmt.Lookup("hint"); v.Type != 0 {
		rb.AppendValue("hint", v)
	}
	return sb.Build(), rb.Build()
}

// shapeFingerprint hashes what the queryShape of a find, count, distinct
// or findAndModify command (shaped by form) depends on, without its
// literal values and without allocating (queryshape.WriteStructure); ok
// is false for the commands it does not cover (aggregate), whose shape is
// computed every time.
func shapeFingerprint(seed maphash.Seed, db string, cmd bsoncore.Document, name string, form *shapeForm, coll string) (fp uint64, ok bool) {
	var filter, sortV, proj, limit, skip, key, update bsoncore.Value
	var flags [3]bool // form.flags (at most 3)
	if form == nil || form.pipeline || form.perStatement || form.filter == "" || len(form.flags) > len(flags) {
		return 0, false
	}
	filterKey, projKey, updateKey := form.filter, form.proj, form.update
	if projKey == "" {
		projKey = "projection" // hashed though the shape keeps none
	}
	// One pass over the command: the fields the shape reads.
	if len(cmd) < 5 {
		return 0, false
	}
	rem := cmd[4 : len(cmd)-1]
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return 0, false
		}
		rem = rest
		kb := elemKey(el)
		switch string(kb) {
		case filterKey:
			filter = el.Value()
		case "sort":
			sortV = el.Value()
		case projKey:
			proj = el.Value()
		case "limit":
			limit = el.Value()
		case "skip":
			skip = el.Value()
		case "key":
			key = el.Value()
		case updateKey:
			update = el.Value()
		default:
			for i, f := range form.flags {
				if string(kb) == f {
					flags[i], _ = el.Value().BooleanOK()
				}
			}
		}
	}
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(name)
	h.WriteByte(0)
	h.WriteString(db)
	h.WriteByte(0)
	h.WriteString(coll)
	h.WriteByte(0)
	fpDoc(&h, filter)
	fpRaw(&h, sortV)
	fpRaw(&h, proj)
	if form.limitSkip {
		fpNonZero(&h, limit)
		fpNonZero(&h, skip)
	}
	if form.key {
		fpRaw(&h, key)
	}
	if form.update != "" {
		fpUpdate(&h, update)
		for _, f := range flags[:len(form.flags)] {
			if f {
				h.WriteByte('1')
			} else {
				h.WriteByte('0')
			}
		}
	}
	return h.Sum64(), true
}

// writeFingerprint is shapeFingerprint for one update or delete statement
// (shaped by form).
func writeFingerprint(seed maphash.Seed, db, coll, name string, form *shapeForm, stmt bsoncore.Document) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(name)
	h.WriteByte(0)
	h.WriteString(db)
	h.WriteByte(0)
	h.WriteString(coll)
	h.WriteByte(0)
	fpDoc(&h, stmt.Lookup(form.filter))
	if form.update != "" {
		fpUpdate(&h, stmt.Lookup(form.update))
		for _, k := range form.flags {
			v, _ := stmt.Lookup(k).BooleanOK()
			if v {
				h.WriteByte('1')
			} else {
				h.WriteByte('0')
			}
		}
	}
	if _, ok := asInt64(stmt.Lookup("limit")); ok && form.stmtLimit {
		h.WriteByte('l')
	}
	return h.Sum64()
}

// fpDoc writes a filter's structure, marking its absence.
func fpDoc(h *maphash.Hash, v bsoncore.Value) {
	if d, ok := v.DocumentOK(); ok {
		h.WriteByte('{')
		queryshape.WriteStructure(h, d)
		h.WriteByte('}')
	}
	h.WriteByte(0)
}

// fpRaw writes a value's bytes whole: a shape keeps sorts, projections'
// forms and keys as they are.
func fpRaw(h *maphash.Hash, v bsoncore.Value) {
	h.WriteByte(byte(v.Type))
	h.Write(v.Data)
	h.WriteByte(0)
}

// fpNonZero writes whether a limit or skip is set.
func fpNonZero(h *maphash.Hash, v bsoncore.Value) {
	if n, ok := asInt64(v); ok && n != 0 {
		h.WriteByte('n')
	}
	h.WriteByte(0)
}

// fpUpdate writes an update's structure; a pipeline is written whole.
func fpUpdate(h *maphash.Hash, u bsoncore.Value) {
	h.WriteByte(byte(u.Type))
	if u.Type == bsoncore.TypeEmbeddedDocument {
		queryshape.WriteStructure(h, u.Document())
	} else {
		h.Write(u.Data)
	}
	h.WriteByte(0)
}

// elemKey is an element's key without copying it.
func elemKey(el bsoncore.Element) []byte {
	for i := 1; i < len(el); i++ {
		if el[i] == 0 {
			return el[1:i]
		}
	}
	return nil
}
