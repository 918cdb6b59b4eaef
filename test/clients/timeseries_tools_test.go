package clients

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestTimeseriesDumpRestore: mongodump writes a time series collection
// as its buckets with the collection's options and indexes, and
// mongorestore creates it as a time series collection again (create with
// the timeseries options, the buckets inserted into system.buckets, the
// indexes through the time series namespace), after which inserts go on.
func TestTimeseriesDumpRestore(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongorestore")
	s := startServer(t)
	c := connect(t, s)
	ctx := context.Background()
	src := c.Database("tssrc")
	o := options.CreateCollection().SetTimeSeriesOptions(options.TimeSeries().SetTimeField("t").SetMetaField("h").SetGranularity("minutes")).SetExpireAfterSeconds(10 * 365 * 86400)
	if err := src.CreateCollection(ctx, "ev", o); err != nil {
		t.Fatal(err)
	}
	coll := src.Collection("ev")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var docs []any
	for i := 0; i < 2500; i++ {
		docs = append(docs, bson.D{{Key: "t", Value: start.Add(time.Duration(i) * time.Second)}, {Key: "h", Value: bson.D{{Key: "host", Value: "h" + string(rune('0'+i%3))}}}, {Key: "v", Value: int32(i)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "v", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mongodump", "--db", "tssrc", "-o", dir},
		{"mongorestore", "--nsFrom", "tssrc.*", "--nsTo", "tsdst.*", dir},
	} {
		out, err := runTool(t, tools, args[0], append([]string{"--uri", s.uri()}, args[1:]...)...)
		if err != nil || strings.Contains(out, "Failed") {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	dst := c.Database("tsdst")
	specs, err := dst.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "ev"}})
	if err != nil || len(specs) != 1 || specs[0].Type != "timeseries" {
		t.Fatalf("restored: %+v %v", specs, err)
	}
	if g := specs[0].Options.Lookup("timeseries", "granularity").StringValue(); g != "minutes" {
		t.Fatalf("restored options %v", specs[0].Options)
	}
	if n := specs[0].Options.Lookup("expireAfterSeconds").AsInt64(); n != 10*365*86400 {
		t.Fatalf("restored expiry %v", specs[0].Options)
	}
	ixs, err := dst.Collection("ev").Indexes().ListSpecifications(ctx)
	if err != nil || len(ixs) != 2 || ixs[0].Name != "h_1_t_1" || ixs[1].Name != "v_1" {
		t.Fatalf("restored indexes: %+v %v", ixs, err)
	}
	// The buckets are the source's, byte for byte.
	read := func(d *mongo.Database) []bson.Raw {
		cur, err := d.Collection("system.buckets.ev").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		for cur.Next(ctx) {
			out = append(out, append(bson.Raw(nil), cur.Current...))
		}
		return out
	}
	a, b := read(src), read(dst)
	if len(a) != 3 || len(a) != len(b) {
		t.Fatalf("%d buckets restored from %d", len(b), len(a))
	}
	for i := range a {
		if string(a[i]) != string(b[i]) {
			t.Fatalf("bucket %d differs:\n%v\n%v", i, a[i], b[i])
		}
	}
	// Read through the restored collection, the measurements are the
	// source's.
	cur, err := dst.Collection("ev").Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil},
		{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "v", Value: bson.D{{Key: "$sum", Value: "$v"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var sums []struct {
		N int32 `bson:"n"`
		V int64 `bson:"v"`
	}
	if err := cur.All(ctx, &sums); err != nil || len(sums) != 1 || sums[0].N != 2500 || sums[0].V != 2499*2500/2 {
		t.Fatalf("the restored measurements through the collection: %+v %v", sums, err)
	}
	if _, err := dst.Collection("ev").InsertOne(ctx, bson.D{{Key: "t", Value: start}, {Key: "h", Value: bson.D{{Key: "host", Value: "h0"}}}}); err != nil {
		t.Fatal(err)
	}
	// The restored bucket of h0 is reopened for it (mongod 7.0 reopens
	// stored buckets).
	after := read(dst)
	if len(after) != 3 {
		t.Fatalf("%d buckets after an insert into the restored collection", len(after))
	}
	n := 0
	for _, b := range after {
		els, _ := b.Lookup("data", "t").Document().Elements()
		n += len(els)
	}
	if n != 2501 {
		t.Fatalf("%d measurements after the insert", n)
	}
}
