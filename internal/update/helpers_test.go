package update

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// d parses relaxed extended JSON into a raw document, keeping field order
// and numeric types (1 is int32, 1.0 double, {"$numberLong": "1"} int64).
func d(t testing.TB, s string) bsoncore.Document {
	t.Helper()
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(s), false, &raw); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return bsoncore.Document(raw)
}

func show(doc bsoncore.Document) string {
	if doc == nil {
		return "<nil>"
	}
	return bson.Raw(doc).String()
}

// updCase is one table-driven update test.
type updCase struct {
	name    string
	doc     string
	update  string
	filters []string
	pos     int // Pos+1, so the zero value means "no positional match"
	insert  bool
	want    string // expected document; "" when an error is expected
	noop    bool   // expect modified == false
	code    errs.Code
	msg     string
}

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func runCases(t *testing.T, cases []updCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var filters []bsoncore.Document
			for _, f := range tc.filters {
				filters = append(filters, d(t, f))
			}
			u, err := Parse(d(t, tc.update), filters)
			if err == nil {
				var out bsoncore.Document
				var mod bool
				doc := d(t, tc.doc)
				out, mod, err = u.Apply(doc, ApplyOptions{Insert: tc.insert, Pos: tc.pos - 1, Now: testNow})
				if err == nil {
					if tc.code != 0 {
						t.Fatalf("want error %d %q, got %s", tc.code, tc.msg, show(out))
					}
					want := d(t, tc.want)
					if !bytes.Equal(out, want) {
						t.Fatalf("got  %s\nwant %s", show(out), show(want))
					}
					if mod == tc.noop {
						t.Fatalf("modified = %v, want %v", mod, !tc.noop)
					}
					if !mod && !bytes.Equal(out, doc) {
						t.Fatalf("unmodified result differs from input")
					}
					return
				}
			}
			var e *errs.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not *errs.Error", err)
			}
			if tc.code == 0 {
				t.Fatalf("unexpected error %v", err)
			}
			if e.Code != tc.code || (tc.msg != "" && e.Msg != tc.msg) {
				t.Fatalf("got error %d %q\nwant      %d %q", e.Code, e.Msg, tc.code, tc.msg)
			}
		})
	}
}
