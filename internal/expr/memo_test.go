package expr

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// Memoised lookups follow NextDoc: a buffer reused for another document
// (the same address and length) is read afresh after NextDoc, and a
// different document is read afresh without it.
func TestDocMemo(t *testing.T) {
	e, err := Parse(mustVal(t, `{"$add":[{"$year":"$d"},{"$month":"$d"},"$n","$m"]}`), NewParseContext())
	if err != nil {
		t.Fatal(err)
	}
	a := mustDoc(t, `{"n":1,"m":2,"d":{"$date":"2000-10-01T00:00:00Z"}}`)
	b := mustDoc(t, `{"n":5,"m":6,"d":{"$date":"2001-11-01T00:00:00Z"}}`)
	if len(a) != len(b) {
		t.Fatalf("test documents must have one length: %d, %d", len(a), len(b))
	}
	vars := NewVars(time.Now())
	buf := append([]byte(nil), a...)
	check := func(doc []byte, want int64) {
		t.Helper()
		v, err := e.Eval(doc, vars)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := v.AsInt64OK(); !ok || got != want {
			t.Fatalf("got %s, want %d", bsonutil.FormatValue(v, msgStyle), want)
		}
	}
	vars.NextDoc()
	check(buf, 2000+10+1+2)
	check(b, 2001+11+5+6) // another document, same generation
	copy(buf, b)
	vars.NextDoc()
	check(buf, 2001+11+5+6) // same buffer, new document
	copy(buf, a)
	vars.NextDoc()
	check(buf, 2000+10+1+2)
	v, err := e.Eval(mustDoc(t, `{"n":1}`), vars) // missing fields: null
	if err != nil || v.Type != bsoncore.TypeNull {
		t.Fatalf("got %s, %v; want null", bsonutil.FormatValue(v, msgStyle), err)
	}
}
