package server

import (
	"hash/maphash"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/queryshape"
)

// commandShape returns the queryShape of a find, aggregate, count,
// distinct or findAndModify (nil for a command that has none) and its
// representativeQuery: the same fields with their values, as the command
// gave them.
func commandShape(db string, cmd bsoncore.Document, name, coll string) (shape, rep bsoncore.Document) {
	sb := bsoncore.NewDocumentBuilder().
		AppendDocument("cmdNs", bsoncore.NewDocumentBuilder().AppendString("db", db).AppendString("coll", coll).Build()).
		AppendString("command", name)
	rb := bsoncore.NewDocumentBuilder()
	filterKey := "filter"
	switch name {
	case "count", "distinct", "findAndModify":
		filterKey = "query"
	}
	if name != "aggregate" {
		f, _ := cmd.Lookup(filterKey).DocumentOK()
		if f == nil {
			f = emptyDoc()
		}
		sb.AppendDocument("filter", queryshape.Filter(f))
		rb.AppendDocument("filter", f)
	}
	switch name {
	case "find":
		appendSortProj(cmd, "projection", sb, rb)
		appendShapeNumber(cmd, "limit", sb, rb)
		appendShapeNumber(cmd, "skip", sb, rb)
	case "count":
		appendShapeNumber(cmd, "limit", sb, rb)
		appendShapeNumber(cmd, "skip", sb, rb)
	case "distinct":
		if k, ok := cmd.Lookup("key").StringValueOK(); ok {
			sb.AppendString("key", k)
			rb.AppendString("key", k)
		}
	case "findAndModify":
		appendSortProj(cmd, "fields", sb, rb)
		if u := cmd.Lookup("update"); u.Type != 0 {
			sb.AppendValue("update", queryshape.Update(u))
			rb.AppendValue("update", u)
		}
		for _, k := range []string{"remove", "new", "upsert"} {
			if v, ok := cmd.Lookup(k).BooleanOK(); ok && v {
				sb.AppendBoolean(k, true)
				rb.AppendBoolean(k, true)
			}
		}
	case "aggregate":
		arr, ok := cmd.Lookup("pipeline").ArrayOK()
		if !ok {
			return nil, nil
		}
		sb.AppendArray("pipeline", queryshape.Pipeline(docs(arr)))
		rb.AppendArray("pipeline", arr)
	default:
		return nil, nil
	}
	for _, k := range []string{"hint", "collation"} {
		if v := cmd.Lookup(k); v.Type != 0 {
			rb.AppendValue(k, v)
		}
	}
	return sb.Build(), rb.Build()
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
	sb := bsoncore.NewDocumentBuilder().
		AppendDocument("cmdNs", bsoncore.NewDocumentBuilder().AppendString("db", db).AppendString("coll", coll).Build()).
		AppendString("command", name)
	rb := bsoncore.NewDocumentBuilder()
	q, _ := stmt.Lookup("q").DocumentOK()
	if q == nil {
		q = emptyDoc()
	}
	sb.AppendDocument("filter", queryshape.Filter(q))
	rb.AppendDocument("filter", q)
	if name == "update" {
		if u := stmt.Lookup("u"); u.Type != 0 {
			sb.AppendValue("update", queryshape.Update(u))
			rb.AppendValue("update", u)
		}
		for _, k := range []string{"multi", "upsert"} {
			if v, ok := stmt.Lookup(k).BooleanOK(); ok && v {
				sb.AppendBoolean(k, true)
				rb.AppendBoolean(k, true)
			}
		}
	} else if n, ok := asInt64(stmt.Lookup("limit")); ok {
		sb.AppendString("limit", "?number")
		rb.AppendInt64("limit", n)
	}
	if v := stmt.Lookup("hint"); v.Type != 0 {
		rb.AppendValue("hint", v)
	}
	return sb.Build(), rb.Build()
}

// shapeFingerprint hashes what the queryShape of a find, count, distinct
// or findAndModify command depends on, without its literal values and
// without allocating (queryshape.WriteStructure); ok is false for the
// commands it does not cover (aggregate), whose shape is computed every
// time.
func shapeFingerprint(seed maphash.Seed, db string, cmd bsoncore.Document, name, coll string) (fp uint64, ok bool) {
	var filter, sortV, proj, limit, skip, key, update bsoncore.Value
	var flags [3]bool // remove, new, upsert
	filterKey, projKey := "filter", "projection"
	switch name {
	case "find":
	case "count", "distinct":
		filterKey = "query"
	case "findAndModify":
		filterKey, projKey = "query", "fields"
	default:
		return 0, false
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
		case "update":
			update = el.Value()
		case "remove", "new", "upsert":
			v, _ := el.Value().BooleanOK()
			switch string(kb) {
			case "remove":
				flags[0] = v
			case "new":
				flags[1] = v
			default:
				flags[2] = v
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
	switch name {
	case "find", "count":
		fpNonZero(&h, limit)
		fpNonZero(&h, skip)
	case "distinct":
		fpRaw(&h, key)
	case "findAndModify":
		fpUpdate(&h, update)
		for _, f := range flags {
			if f {
				h.WriteByte('1')
			} else {
				h.WriteByte('0')
			}
		}
	}
	return h.Sum64(), true
}

// writeFingerprint is shapeFingerprint for one update or delete statement.
func writeFingerprint(seed maphash.Seed, db, coll, name string, stmt bsoncore.Document) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(name)
	h.WriteByte(0)
	h.WriteString(db)
	h.WriteByte(0)
	h.WriteString(coll)
	h.WriteByte(0)
	fpDoc(&h, stmt.Lookup("q"))
	if name == "update" {
		fpUpdate(&h, stmt.Lookup("u"))
		for _, k := range []string{"multi", "upsert"} {
			v, _ := stmt.Lookup(k).BooleanOK()
			if v {
				h.WriteByte('1')
			} else {
				h.WriteByte('0')
			}
		}
	} else if _, ok := asInt64(stmt.Lookup("limit")); ok {
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
