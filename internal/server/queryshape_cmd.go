package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/queryshape"
)

// commandShape returns the queryShape of a find, aggregate, count,
// distinct or findAndModify (nil for a command that has none) and its
// representativeQuery: the same fields with their values, as the command
// gave them.
func commandShape(req *Request, name, coll string) (shape, rep bsoncore.Document) {
	sb := bsoncore.NewDocumentBuilder().
		AppendDocument("cmdNs", bsoncore.NewDocumentBuilder().AppendString("db", req.DB).AppendString("coll", coll).Build()).
		AppendString("command", name)
	rb := bsoncore.NewDocumentBuilder()
	cmd := req.Cmd
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
