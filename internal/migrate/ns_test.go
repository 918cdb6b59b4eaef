package migrate

import (
	"cmp"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestNamespaces(t *testing.T) {
	n, err := NewNamespaces([]string{"app.*", "logs.events"}, []string{"app.tmp*"},
		[]string{"app.$coll$", "logs.$c$"}, []string{"app_v2.$coll$", "archive.logs_$c$"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		db, coll string
		in       bool
	}{
		{"app", "users", true}, {"app", "tmp1", false}, {"logs", "events", true}, {"logs", "other", false},
		{"admin", "users", false}, {"config", "x", false}, {"local", "oplog.rs", false}, {"app", "system.views", false},
		{CheckpointDB, CheckpointColl, false},
	} {
		if got := n.Included(c.db, c.coll); got != c.in {
			t.Errorf("Included(%s.%s) = %v, want %v", c.db, c.coll, got, c.in)
		}
	}
	for _, c := range []struct{ db, coll, tdb, tcoll string }{
		{"app", "users", "app_v2", "users"},
		{"app", "a.b", "app_v2", "a.b"},
		{"logs", "events", "archive", "logs_events"},
		{"other", "x", "other", "x"},
	} {
		if tdb, tcoll := n.Target(c.db, c.coll); tdb != c.tdb || tcoll != c.tcoll {
			t.Errorf("Target(%s.%s) = %s.%s, want %s.%s", c.db, c.coll, tdb, tcoll, c.tdb, c.tcoll)
		}
	}
	if !n.DBIncluded("app") || n.DBIncluded("web") || n.DBIncluded("admin") {
		t.Error("DBIncluded")
	}
	for _, bad := range [][4][]string{
		{{"nodot"}, nil, nil, nil},
		{nil, {"a.["}, nil, nil},
		{nil, nil, {"a.$x$"}, nil},
		{nil, nil, {"a.$x$"}, {"b.$y$"}},
		{nil, nil, {"a.$x$$x$"}, {"b.$x$"}},
	} {
		if _, err := NewNamespaces(bad[0], bad[1], bad[2], bad[3]); err == nil {
			t.Errorf("NewNamespaces(%q) accepted", bad)
		}
	}
}

func TestCompareValuesOrdersAsTheServer(t *testing.T) {
	// MongoDB's order of _id values of mixed types (simple collation).
	ordered := []any{
		bson.MinKey{}, nil, int32(-5), 2.5, int64(3), "A", "a", "ab",
		bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}}, bson.D{{Key: "b", Value: 0}},
		bson.A{1}, bson.Binary{Data: []byte{9}}, bson.Binary{Data: []byte{1, 1}},
		bson.ObjectID{1}, bson.ObjectID{2}, false, true,
		bson.DateTime(1), bson.DateTime(2), bson.Timestamp{T: 1}, bson.MaxKey{},
	}
	vals := make([]bson.RawValue, len(ordered))
	for i, v := range ordered {
		doc, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
		if err != nil {
			t.Fatal(err)
		}
		vals[i] = bson.Raw(doc).Lookup("v")
	}
	for i := range vals {
		for j := range vals {
			want := cmp.Compare(i, j)
			if got := compareValues(vals[i], vals[j]); got != want {
				t.Errorf("compare(%v, %v) = %d, want %d", vals[i], vals[j], got, want)
			}
		}
	}
	one, _ := bson.Marshal(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: 1.0}})
	if compareValues(bson.Raw(one).Lookup("a"), bson.Raw(one).Lookup("b")) != 0 {
		t.Error("1 and 1.0 differ")
	}
}

func TestTokenTime(t *testing.T) {
	tok, _ := bson.Marshal(bson.D{{Key: "_data", Value: "826B0BBD41000001F4000000050200"}})
	ts, ok := tokenTime(tok)
	if !ok || ts.T != 0x6B0BBD41 || ts.I != 0x1F4 {
		t.Errorf("tokenTime = %v %v", ts, ok)
	}
	bad, _ := bson.Marshal(bson.D{{Key: "_data", Value: "zz"}})
	if _, ok := tokenTime(bad); ok {
		t.Error("a bad token parsed")
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"mongodb://u:secret@h1,h2/?replicaSet=rs0": "mongodb://u:****@h1,h2/?replicaSet=rs0",
		"mongodb+srv://u@c.example.net/":           "mongodb+srv://u@c.example.net/",
		"mongodb://h:27017/":                       "mongodb://h:27017/",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}
