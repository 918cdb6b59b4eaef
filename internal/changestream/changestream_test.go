package changestream

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// TestTokensSortInStreamOrder: a token's _data string orders like the
// position it names, and parses back to it.
func TestTokensSortInStreamOrder(t *testing.T) {
	toks := []Token{
		{TS: oplog.MakeTS(10, 1)},
		{TS: oplog.MakeTS(10, 1), Flags: flagInvalidate},
		{TS: oplog.MakeTS(10, 2)},
		{TS: oplog.MakeTS(10, 2), Op: 3},
		highWater(oplog.MakeTS(10, 2)),
		{TS: oplog.MakeTS(11, 1)},
	}
	for i, tok := range toks {
		v := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: tok.Doc()}
		back, err := ParseToken(v, "resumeAfter")
		if err != nil || back != tok {
			t.Fatalf("round trip of %+v: %+v, %v", tok, back, err)
		}
		if i > 0 {
			if !toks[i-1].less(tok) || toks[i-1].String() >= tok.String() {
				t.Fatalf("%+v does not sort before %+v", toks[i-1], tok)
			}
		}
	}
}

// TestParseSpecErrors: mongod's codes for bad $changeStream options.
func TestParseSpecErrors(t *testing.T) {
	tok := Token{TS: oplog.MakeTS(5, 1)}.Doc()
	inv := Token{TS: oplog.MakeTS(5, 1), Flags: flagInvalidate}.Doc()
	cases := []struct {
		spec bson.D
		code errs.Code
	}{
		{bson.D{{Key: "fullDocument", Value: "sometimes"}}, errs.BadValue},
		{bson.D{{Key: "fullDocument", Value: 1}}, errs.TypeMismatch},
		{bson.D{{Key: "bogus", Value: 1}}, errs.Location40415},
		{bson.D{{Key: "resumeAfter", Value: bson.Raw(tok)}, {Key: "startAfter", Value: bson.Raw(tok)}}, errs.Location50865},
		{bson.D{{Key: "resumeAfter", Value: bson.Raw(tok)}, {Key: "startAtOperationTime", Value: bson.Timestamp{T: 5, I: 1}}}, errs.Location40674},
		{bson.D{{Key: "resumeAfter", Value: bson.Raw(inv)}}, errs.InvalidResumeToken},
		{bson.D{{Key: "resumeAfter", Value: bson.D{{Key: "_data", Value: "zz"}}}}, errs.InvalidResumeToken},
		{bson.D{{Key: "showSystemEvents", Value: true}}, errs.NotImplemented},
	}
	for _, c := range cases {
		raw, _ := bson.Marshal(c.spec)
		_, err := ParseSpec(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: raw})
		if e := errs.As(err); e == nil || e.Code != c.code {
			t.Errorf("%v: got %v, want code %d", c.spec, err, c.code)
		}
	}
	raw, _ := bson.Marshal(bson.D{{Key: "startAfter", Value: bson.Raw(inv)}, {Key: "fullDocument", Value: "updateLookup"}})
	s, err := ParseSpec(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: raw})
	if err != nil || !s.StartAfter || s.FullDocument != "updateLookup" || !s.Resume.Invalidate() {
		t.Fatalf("startAfter an invalidate: %+v, %v", s, err)
	}
}

// TestUpdateDescription: a $v: 2 delta as an update event describes it.
func TestUpdateDescription(t *testing.T) {
	pre, _ := bson.Marshal(bson.D{{Key: "a", Value: 1}, {Key: "s", Value: bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 1}}},
		{Key: "arr", Value: bson.A{1, bson.D{{Key: "k", Value: 1}}, 3}}, {Key: "old", Value: 1}})
	post, _ := bson.Marshal(bson.D{{Key: "a", Value: 2}, {Key: "s", Value: bson.D{{Key: "x", Value: 1}}},
		{Key: "arr", Value: bson.A{1, bson.D{{Key: "k", Value: 2}}}}, {Key: "new", Value: true}})
	o := oplog.UpdateO(pre, post)
	got := bson.Raw(updateDescription(bsoncore.Document(o).Lookup("diff").Document(), false)).String()
	want := `{"updatedFields": {"a": {"$numberInt":"2"},"new": true,"arr.1.k": {"$numberInt":"2"}},"removedFields": ["old","s.y"],"truncatedArrays": [{"field": "arr","newSize": {"$numberInt":"2"}}]}`
	if got != want {
		t.Fatalf("updateDescription =\n %s\nwant\n %s", got, want)
	}
}

// TestDisambiguatedPaths: with expanded events, each path that a dotted
// string names ambiguously (a numeric field name below the top level, a
// field name with a dot) is also given as its parts, array indexes as
// integers; other paths are not.
func TestDisambiguatedPaths(t *testing.T) {
	pre, _ := bson.Marshal(bson.D{
		{Key: "a", Value: bson.D{{Key: "1", Value: 1}, {Key: "2", Value: 1}}},
		{Key: "arr", Value: bson.A{bson.D{{Key: "1", Value: 1}}, 5}},
		{Key: "0", Value: bson.D{{Key: "x", Value: 1}}},
		{Key: "b.c", Value: 1},
		{Key: "n", Value: bson.D{{Key: "5", Value: bson.A{1, 2, 3}}, {Key: "07", Value: 1}}},
	})
	post, _ := bson.Marshal(bson.D{
		{Key: "a", Value: bson.D{{Key: "1", Value: 2}}},
		{Key: "arr", Value: bson.A{bson.D{{Key: "1", Value: 2}}, 6}},
		{Key: "0", Value: bson.D{{Key: "x", Value: 2}}},
		{Key: "b.c", Value: 2},
		{Key: "n", Value: bson.D{{Key: "5", Value: bson.A{1}}, {Key: "07", Value: 2}}},
	})
	o := oplog.UpdateO(pre, post)
	ud := bsoncore.Document(updateDescription(bsoncore.Document(o).Lookup("diff").Document(), true))
	got := bson.Raw(ud.Lookup("disambiguatedPaths").Document()).String()
	want := `{"a.1": ["a","1"],"a.2": ["a","2"],"arr.0.1": ["arr",{"$numberInt":"0"},"1"],"b.c": ["b.c"],"n.5": ["n","5"]}`
	var gotM, wantM map[string]any
	_ = bson.UnmarshalExtJSON([]byte(got), false, &gotM)
	_ = bson.UnmarshalExtJSON([]byte(want), false, &wantM)
	if len(gotM) != len(wantM) {
		t.Fatalf("disambiguatedPaths =\n %s\nwant (in any order)\n %s\nupdateDescription: %s", got, want, bson.Raw(ud))
	}
	for k := range wantM {
		g, _ := bson.MarshalExtJSON(bson.M{"v": gotM[k]}, true, false)
		w, _ := bson.MarshalExtJSON(bson.M{"v": wantM[k]}, true, false)
		if string(g) != string(w) {
			t.Fatalf("disambiguatedPaths[%q] = %s, want %s (all: %s)", k, g, w, got)
		}
	}
	plain := bsoncore.Document(updateDescription(bsoncore.Document(o).Lookup("diff").Document(), false))
	if _, err := plain.LookupErr("disambiguatedPaths"); err == nil {
		t.Fatalf("disambiguatedPaths without expanded events: %s", bson.Raw(plain))
	}
}
