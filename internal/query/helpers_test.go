package query

import (
	"strconv"
	"testing"

	"github.com/lodedb/lode/internal/errs"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// doc parses relaxed extended JSON into a raw document, keeping field
// order and types (integers become int32 or int64, decimals double).
func doc(t testing.TB, s string) bsoncore.Document {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docs parses several documents.
func docs(t testing.TB, ss ...string) []bsoncore.Document {
	out := make([]bsoncore.Document, len(ss))
	for i, s := range ss {
		out[i] = doc(t, s)
	}
	return out
}

// ids returns the _id (rendered as ext JSON) of each matching document.
func matchIDs(t *testing.T, f *Filter, ds []bsoncore.Document) []string {
	var out []string
	for _, d := range ds {
		if f.Match(d) {
			out = append(out, idString(d.Lookup("_id")))
		}
	}
	return out
}

// canon renders a document canonically for comparisons in tests.
func canon(t testing.TB, d bsoncore.Document) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(bson.Raw(d), true, false)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return string(b)
}

func asErr(err error) *errs.Error { return errs.As(err) }

// idString renders an _id compactly: quoted strings, plain integers.
func idString(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeString:
		return strconv.Quote(v.StringValue())
	case bsoncore.TypeInt32:
		return strconv.Itoa(int(v.Int32()))
	case bsoncore.TypeInt64:
		return strconv.FormatInt(v.Int64(), 10)
	}
	return v.String()
}
