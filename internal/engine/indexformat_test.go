package engine

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/storage"
)

// legacyKeys returns the keys the cross-product format generated for doc:
// every combination of the fields' values (collectPath), nothing for an
// array element lacking the subfield, null only for a field missing
// altogether.
func legacyKeys(ix *index, doc bsoncore.Document) (keys, tbs [][]byte) {
	vals := make([][]bsoncore.Value, len(ix.Fields))
	for i, f := range ix.Fields {
		var arrs []string
		collectPath(doc, f.Parts, 0, &vals[i], &arrs)
		if len(vals[i]) == 0 {
			vals[i] = []bsoncore.Value{nullValue}
		}
	}
	choice := make([]int, len(vals))
	for {
		var k, tb []byte
		for i, f := range ix.Fields {
			v := vals[i][choice[i]]
			k = keystring.AppendValue(k, v, f.Desc)
			tb = keystring.AppendTypeBits(tb, v)
		}
		keys, tbs = append(keys, k), append(tbs, keystring.TrimTypeBits(tb))
		i := len(choice) - 1
		for ; i >= 0; i-- {
			if choice[i]++; choice[i] < len(vals[i]) {
				break
			}
			choice[i] = 0
		}
		if i < 0 {
			return keys, tbs
		}
	}
}

// writeLegacyIndex is the test hook that turns index name of db.coll into
// what an older Lode left on disk: its entries replaced by cross-product
// keys and its catalog entry without a key format.
func writeLegacyIndex(t *testing.T, e *Engine, db, coll, name string) {
	t.Helper()
	c := e.cat.Load().lookup(db, coll)
	ix := c.IndexByName(name)
	b := e.db.NewBatch()
	_ = storage.DeleteIndexEntries(b, ix.ID)
	cur, err := storage.NewRecordCursor(e.db.Reader(), c.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for rid, doc, ok := cur.Next(); ok; rid, doc, ok = cur.Next() {
		keys, tbs := legacyKeys(ix, doc)
		for i, k := range keys {
			_ = storage.SetIndexEntry(b, ix.ID, k, rid, tbs[i])
		}
	}
	cur.Close()
	n := c.copyMeta()
	for i, x := range n.Indexes {
		if x.Name == name {
			cp := *x
			cp.KeyFormat = 0 // no keyFormat field, as entries written before it existed
			n.Indexes[i] = &cp
		}
	}
	_ = storage.SetCollectionEntry(b, n.ID, encodeCollection(n))
	if _, err := e.db.Commit(b); err != nil {
		t.Fatal(err)
	}
	e.publish(n)
}

// indexEntries counts the entries stored for index name of db.coll.
func indexEntries(t *testing.T, e *Engine, db, coll, name string) int {
	t.Helper()
	ix := e.cat.Load().lookup(db, coll).IndexByName(name)
	cur, err := storage.NewIndexCursor(e.db.Reader(), ix.ID, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	n := 0
	for _, _, _, ok := cur.Next(); ok; _, _, _, ok = cur.Next() {
		n++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIndexKeyFormatRebuildOnOpen(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const docs = 20
	for d := 0; d < docs; d++ {
		var md bson.A
		for p := 0; p < 12; p++ {
			md = append(md, bson.D{{Key: "key", Value: fmt.Sprintf("k%d", p)}, {Key: "value", Value: fmt.Sprintf("v%d_%d", d, (p+d)%12)}})
		}
		insert(t, e, "db", "c", bson.D{{Key: "_id", Value: d}, {Key: "metadata", Value: md}, {Key: "x", Value: d}})
	}
	insert(t, e, "db", "c", bson.D{{Key: "_id", Value: "nulls"}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: 1}}, bson.D{}}}})
	for _, k := range []bson.D{
		{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}},
		{{Key: "a.b", Value: 1}},
		{{Key: "x", Value: 1}},
	} {
		if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, k)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := indexEntries(t, e, "db", "c", "metadata.key_1_metadata.value_1"); n != docs*12+1 {
		t.Fatalf("element-wise entries = %d, want %d", n, docs*12+1)
	}
	for _, name := range []string{"metadata.key_1_metadata.value_1", "a.b_1", "x_1"} {
		writeLegacyIndex(t, e, "db", "c", name)
	}
	if n := indexEntries(t, e, "db", "c", "metadata.key_1_metadata.value_1"); n != docs*144+1 {
		t.Fatalf("legacy entries = %d, want %d", n, docs*144+1)
	}
	e.Close()

	e = openTest(t, dir)
	c := e.cat.Load().lookup("db", "c")
	for _, ix := range c.Indexes {
		if ix.KeyFormat != keyFormatCurrent {
			t.Errorf("index %s key format %d after open", ix.Name, ix.KeyFormat)
		}
	}
	if n := indexEntries(t, e, "db", "c", "metadata.key_1_metadata.value_1"); n != docs*12+1 {
		t.Fatalf("entries after rebuild = %d, want %d (12 per document)", n, docs*12+1)
	}
	mk, _ := e.ListIndexes("db", "c")
	if !mk[1].Multikey || fmt.Sprint(mk[1].MultikeyPaths) != "[metadata]" {
		t.Fatalf("multikey after rebuild: %+v", mk[1])
	}
	// The a.b index now holds the null key of the element lacking b.
	got := findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "a.b", Value: nil}}), Hint: bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "a.b_1")}})
	if len(got) != docs+1 {
		t.Fatalf("{a.b: null} via index found %d, want %d", len(got), docs+1)
	}
	got = findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "metadata", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: "k3"}, {Key: "value", Value: "v5_8"}}}}}})})
	if len(got) != 1 {
		t.Fatalf("$elemMatch after rebuild found %d", len(got))
	}
	// The catalog entry persisted the format: a second open rebuilds nothing.
	id := c.IndexByName("metadata.key_1_metadata.value_1").ID
	e.Close()
	e = openTest(t, dir)
	if got := e.cat.Load().lookup("db", "c").IndexByName("metadata.key_1_metadata.value_1").ID; got != id {
		t.Fatalf("index rebuilt again at the second open (id %d -> %d)", id, got)
	}
}
