package testenv

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

// RunCmd runs cmd on db and returns the reply and the command's error.
func RunCmd(t testing.TB, db *mongo.Database, cmd bson.D) (bson.Raw, error) {
	t.Helper()
	var res bson.Raw
	err := db.RunCommand(Ctx(t), cmd).Decode(&res)
	return res, err
}

// Count runs the count command (CountDocuments goes through aggregate).
func Count(t testing.TB, coll *mongo.Collection, filter bson.D) int64 {
	t.Helper()
	var res bson.Raw
	err := coll.Database().RunCommand(context.Background(), bson.D{{Key: "count", Value: coll.Name()}, {Key: "query", Value: filter}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	return res.Lookup("n").AsInt64()
}

// SetParameter runs {setParameter: 1, name: v} on admin.
func SetParameter(t testing.TB, db *mongo.Database, name string, v any) {
	t.Helper()
	if _, err := RunCmd(t, db.Client().Database("admin"), bson.D{{Key: "setParameter", Value: 1}, {Key: name, Value: v}}); err != nil {
		t.Fatalf("setParameter %s: %v", name, err)
	}
}

// ServerStatus runs serverStatus.
func ServerStatus(t testing.TB, c *mongo.Client) bson.Raw {
	t.Helper()
	raw, err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// LodeMetric reads serverStatus.metrics.lode.<name> (commits, syncs,
// syncWaits: how many writes waited for a journal fsync, walDirectWrites:
// how many log writes went past the page cache for a lone j:true writer).
func LodeMetric(t testing.TB, db *lode.DB, name string) int64 {
	t.Helper()
	v, err := ServerStatus(t, db.Client()).LookupErr("metrics", "lode", name)
	if err != nil {
		t.Fatalf("serverStatus has no metrics.lode.%s: %v", name, err)
	}
	return v.AsInt64()
}

// InsertBatches inserts gen(0) ... gen(n-1) in unordered batches of 10,000.
func InsertBatches(t testing.TB, coll *mongo.Collection, n int, gen func(i int) any) {
	t.Helper()
	const batch = 10000
	docs := make([]any, 0, min(n, batch))
	for i := 0; i < n; i++ {
		docs = append(docs, gen(i))
		if len(docs) == batch || i == n-1 {
			if _, err := coll.InsertMany(Ctx(t), docs, options.InsertMany().SetOrdered(false)); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
}

// CreateIndex builds an index on keys and returns its name.
func CreateIndex(t testing.TB, coll *mongo.Collection, keys bson.D) string {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("createIndex %v: %v", keys, time.Since(start)) }()
	// Building over an acceptance-size collection can take minutes on a
	// loaded machine.
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	name, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// CreateCapped creates a capped collection of size bytes and at most max
// documents (0: no limit).
func CreateCapped(t testing.TB, d *mongo.Database, name string, size, max int64) *mongo.Collection {
	t.Helper()
	o := options.CreateCollection().SetCapped(true).SetSizeInBytes(size)
	if max > 0 {
		o.SetMaxDocuments(max)
	}
	if err := d.CreateCollection(context.Background(), name, o); err != nil {
		t.Fatal(err)
	}
	return d.Collection(name)
}

// CollSizes are collStats' size figures.
type CollSizes struct {
	Storage, Total, TotalIndex int64
	Index                      map[string]int64 // indexSizes
}

// ReadCollSizes runs collStats on coll.
func ReadCollSizes(t testing.TB, d *mongo.Database, coll string) CollSizes {
	t.Helper()
	var cs bson.Raw
	if err := d.RunCommand(context.Background(), bson.D{{Key: "collStats", Value: coll}}).Decode(&cs); err != nil {
		t.Fatal(err)
	}
	s := CollSizes{
		Storage:    cs.Lookup("storageSize").AsInt64(),
		Total:      cs.Lookup("totalSize").AsInt64(),
		TotalIndex: cs.Lookup("totalIndexSize").AsInt64(),
		Index:      map[string]int64{},
	}
	els, _ := cs.Lookup("indexSizes").Document().Elements()
	for _, el := range els {
		s.Index[el.Key()] = el.Value().AsInt64()
	}
	return s
}

// FindDoc returns the document with the given _id as a map, failing the
// test if there is none.
func FindDoc(t testing.TB, coll *mongo.Collection, id any) bson.M {
	t.Helper()
	var m bson.M
	if err := coll.FindOne(Ctx(t), bson.D{{Key: "_id", Value: id}}).Decode(&m); err != nil {
		t.Fatalf("find _id %v: %v", id, err)
	}
	return m
}
