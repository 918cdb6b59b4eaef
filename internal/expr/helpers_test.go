package expr

import (
	"testing"
	"time"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// tc is one table-driven expression case: expression and document in
// relaxed extended JSON, expected result as {"r": ...} ("" = missing), or
// an expected error code.
type tc struct {
	expr string
	doc  string
	want string
	code errs.Code
}

func mustDoc(t testing.TB, s string) bsoncore.Document {
	t.Helper()
	if s == "" {
		s = "{}"
	}
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad json %s: %v", s, err)
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustVal(t testing.TB, s string) bsoncore.Value {
	t.Helper()
	return mustDoc(t, `{"v": `+s+`}`).Lookup("v")
}

// sameValue compares values by MongoDB order and exact BSON type.
func sameValue(a, b bsoncore.Value) bool {
	if a.Type != b.Type {
		return false
	}
	if a.Type == 0 {
		return true
	}
	if a.Type == bsoncore.TypeArray || a.Type == bsoncore.TypeEmbeddedDocument {
		// element-wise with types
		av, bv := values(a), values(b)
		if len(av) != len(bv) {
			return false
		}
		ok := true
		i := 0
		forEach(a.Data, func(k []byte, x bsoncore.Value) bool {
			var kb []byte
			j := 0
			forEach(b.Data, func(k2 []byte, y bsoncore.Value) bool {
				if j == i {
					kb = k2
					ok = ok && string(k) == string(k2) && sameValue(x, y)
					return false
				}
				j++
				return true
			})
			_ = kb
			i++
			return ok
		})
		return ok
	}
	return bsonutil.Compare(a, b) == 0
}

func runCases(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			vars := NewVars(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
			e, err := Parse(mustVal(t, c.expr), NewParseContext())
			var got bsoncore.Value
			if err == nil {
				got, err = e.Eval(mustDoc(t, c.doc), vars)
			}
			if c.code != 0 {
				if !errs.Is(err, c.code) {
					t.Fatalf("want error code %d, got %v (result %v)", c.code, err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := Missing
			if c.want != "" {
				want = mustVal(t, c.want)
			}
			if !sameValue(got, want) {
				t.Fatalf("got %s (%s), want %s (%s)", bsonutil.FormatValue(got, msgStyle), bsonutil.TypeName(got.Type), bsonutil.FormatValue(want, msgStyle), bsonutil.TypeName(want.Type))
			}
		})
	}
}
