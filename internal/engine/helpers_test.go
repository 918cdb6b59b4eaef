package engine

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func openTest(t testing.TB, dir string) *Engine {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// D builds a raw document from a bson.D.
func D(t testing.TB, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func val(t testing.TB, d bson.D) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: D(t, d)}
}

func findAll(t testing.TB, e *Engine, db, coll string, spec FindSpec) []bsoncore.Document {
	t.Helper()
	it, err := e.Find(context.Background(), db, coll, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			return out
		}
		out = append(out, d)
	}
}

func jsonOf(docs []bsoncore.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = bson.Raw(d).String()
	}
	return out
}

func insert(t testing.TB, e *Engine, db, coll string, docs ...bson.D) InsertResult {
	t.Helper()
	raw := make([]bsoncore.Document, len(docs))
	for i, d := range docs {
		raw[i] = D(t, d)
	}
	res, err := e.Insert(context.Background(), db, coll, raw, WriteOptions{Ordered: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
