package timeseries_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsoncolumn"
	"github.com/lodedb/lode/test/testenv"
)

// buckets reads db.system.buckets.<name> directly, in _id order, a
// closed (compressed, version 2) bucket in its version-1 form
// (rawBuckets reads them as stored).
func buckets(t *testing.T, d *mongo.Database, name string) []bson.Raw {
	t.Helper()
	out := rawBuckets(t, d, name)
	for i, b := range out {
		if v, _ := b.Lookup("control", "version").AsInt64OK(); v == 2 {
			v1, err := bsoncolumn.DecompressBucket(bsoncore.Document(b))
			if err != nil {
				t.Fatalf("decompress %v: %v", b, err)
			}
			out[i] = bson.Raw(v1)
		}
	}
	return out
}

// rawBuckets reads db.system.buckets.<name> as stored, in _id order.
func rawBuckets(t *testing.T, d *mongo.Database, name string) []bson.Raw {
	t.Helper()
	cur, err := d.Collection("system.buckets."+name).Find(testenv.Ctx(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	for cur.Next(testenv.Ctx(t)) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// count returns the number of measurements of bucket b (its _id column).
func count(t *testing.T, b bson.Raw) int {
	t.Helper()
	ids, err := b.LookupErr("data", "_id")
	if err != nil {
		t.Fatalf("bucket without data._id: %v", b)
	}
	els, _ := ids.Document().Elements()
	return len(els)
}

var t0 = time.Date(2026, 3, 1, 10, 15, 42, 500e6, time.UTC)

func TestBucketShape(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "w", bson.D{{Key: "timeField", Value: "time"}, {Key: "metaField", Value: "sensor"}})
	coll := d.Collection("w")
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "time", Value: t0}, {Key: "sensor", Value: bson.D{{Key: "z", Value: 1}, {Key: "a", Value: "x"}}}, {Key: "temp", Value: 12.5}},
		bson.D{{Key: "_id", Value: 2}, {Key: "time", Value: t0.Add(10 * time.Second)}, {Key: "sensor", Value: bson.D{{Key: "a", Value: "x"}, {Key: "z", Value: 1}}}, {Key: "temp", Value: 9}, {Key: "hum", Value: 40}},
		bson.D{{Key: "_id", Value: 3}, {Key: "time", Value: t0.Add(5 * time.Second)}, {Key: "sensor", Value: "other"}, {Key: "temp", Value: 30}},
		bson.D{{Key: "_id", Value: 4}, {Key: "time", Value: t0.Add(6 * time.Second)}, {Key: "temp", Value: 1}},
	}
	res, err := coll.InsertMany(c, docs)
	if err != nil || len(res.InsertedIDs) != 4 {
		t.Fatal(res, err)
	}
	bs := buckets(t, d, "w")
	if len(bs) != 3 {
		t.Fatalf("%d buckets, want 3 (one per meta value): %v", len(bs), bs)
	}
	start := time.Date(2026, 3, 1, 10, 15, 0, 0, time.UTC) // rounded down to the minute
	var found bool
	for _, b := range bs {
		if b.Lookup("control", "version").Int32() != 1 {
			t.Fatalf("control.version: %v", b)
		}
		min := b.Lookup("control", "min", "time").Time()
		if !min.Equal(start) {
			t.Fatalf("control.min.time %v, want %v", min, start)
		}
		oid := b.Lookup("_id").ObjectID()
		if !oid.Timestamp().Equal(start) {
			t.Fatalf("bucket _id time %v, want %v", oid.Timestamp(), start)
		}
		m, err := b.LookupErr("meta")
		if err != nil || m.Type != bson.TypeEmbeddedDocument {
			continue
		}
		found = true
		// The meta document normalised (fields sorted), both
		// measurements in one bucket.
		if got := m.String(); got != `{"a": "x","z": {"$numberInt":"1"}}` {
			t.Fatalf("meta %s", got)
		}
		if count(t, b) != 2 {
			t.Fatalf("bucket %v", b)
		}
		if got := b.Lookup("control", "min", "temp").AsFloat64(); got != 9 {
			t.Fatalf("control.min.temp %v", got)
		}
		if got := b.Lookup("control", "max", "temp").AsFloat64(); got != 12.5 {
			t.Fatalf("control.max.temp %v", got)
		}
		if got := b.Lookup("control", "max", "time").Time(); !got.Equal(t0.Add(10 * time.Second)) {
			t.Fatalf("control.max.time %v", got)
		}
		if got := b.Lookup("data", "hum").String(); got != `{"1": {"$numberInt":"40"}}` {
			t.Fatalf("data.hum %s", got)
		}
		if got := b.Lookup("data", "time", "0").Time(); !got.Equal(t0) {
			t.Fatalf("data.time.0 %v", got)
		}
		if _, err := b.LookupErr("data", "sensor"); err == nil {
			t.Fatal("meta field in data")
		}
		keys, _ := b.Elements()
		var names []string
		for _, k := range keys {
			names = append(names, k.Key())
		}
		if strings.Join(names, ",") != "_id,control,meta,data" {
			t.Fatalf("bucket fields %v", names)
		}
	}
	if !found {
		t.Fatal("no bucket with the document meta")
	}
	// The measurement without meta has a bucket without meta.
	noMeta := 0
	for _, b := range bs {
		if _, err := b.LookupErr("meta"); err != nil {
			noMeta++
		}
	}
	if noMeta != 1 {
		t.Fatalf("%d buckets without meta", noMeta)
	}
}

func TestInsertErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "e", bson.D{{Key: "timeField", Value: "t"}})
	coll := d.Collection("e")
	docs := []any{
		bson.D{{Key: "t", Value: t0}},
		bson.D{{Key: "t", Value: "not a date"}},
		bson.D{{Key: "x", Value: 1}},
		bson.D{{Key: "t", Value: t0}},
	}
	// Ordered: stops at the first bad measurement.
	_, err := coll.InsertMany(c, docs)
	var bwe mongo.BulkWriteException
	if !errorAs(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Code != 2 || bwe.WriteErrors[0].Index != 1 {
		t.Fatalf("ordered insert: %v", err)
	}
	if !strings.Contains(bwe.WriteErrors[0].Message, "'t' must be present and contain a valid BSON UTC datetime value") {
		t.Fatalf("message %q", bwe.WriteErrors[0].Message)
	}
	if n := countMeasurements(t, d, "e"); n != 1 {
		t.Fatalf("%d measurements after the ordered insert, want 1", n)
	}
	// Unordered: both bad ones reported, the good ones inserted.
	_, err = coll.InsertMany(c, docs, options.InsertMany().SetOrdered(false))
	if !errorAs(err, &bwe) || len(bwe.WriteErrors) != 2 || bwe.WriteErrors[1].Index != 2 {
		t.Fatalf("unordered insert: %v", err)
	}
	if n := countMeasurements(t, d, "e"); n != 3 {
		t.Fatalf("%d measurements, want 3", n)
	}
	// Not in a transaction (7.0: reads only).
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(c)
	_, err = sess.WithTransaction(c, func(ctx context.Context) (any, error) {
		return coll.InsertOne(ctx, bson.D{{Key: "t", Value: t0}})
	})
	testenv.WantCode(t, "insert in a transaction", err, 263)
	// Measurements with the same _id are all kept.
	if _, err := coll.InsertMany(c, []any{bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: t0}}, bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: t0}}}); err != nil {
		t.Fatal(err)
	}
	if n := countMeasurements(t, d, "e"); n != 5 {
		t.Fatalf("%d measurements, want 5", n)
	}
}

func countMeasurements(t *testing.T, d *mongo.Database, name string) int {
	n := 0
	for _, b := range buckets(t, d, name) {
		n += count(t, b)
	}
	return n
}

func TestRollover(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "r", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	coll := d.Collection("r")

	// Count: 1001 measurements of one series in one minute.
	testenv.InsertBatches(t, coll, 1001, func(i int) any {
		return bson.D{{Key: "t", Value: t0.Add(time.Duration(i) * time.Millisecond)}, {Key: "m", Value: "count"}, {Key: "v", Value: i}}
	})
	// Time span (granularity seconds: one hour): two hours apart.
	// Out of order: a measurement before the open bucket's start opens
	// another; one back in the first range goes back to the first.
	for _, off := range []time.Duration{0, 2 * time.Hour, -time.Hour, 2*time.Hour + time.Minute} {
		if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0.Add(off)}, {Key: "m", Value: "span"}}); err != nil {
			t.Fatal(err)
		}
	}
	// Size: measurements of 20 KB close a bucket past 125 KB once it
	// holds 10 (mongod keeps large measurements together up to then).
	big := strings.Repeat("x", 20000)
	for i := 0; i < 11; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0}, {Key: "m", Value: "size"}, {Key: "s", Value: big}}); err != nil {
			t.Fatal(err)
		}
	}
	// Schema: a field that changes type closes the bucket.
	for _, v := range []any{1, 2.5, "three"} {
		if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0}, {Key: "m", Value: "schema"}, {Key: "v", Value: v}}); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string][]int{}
	for _, b := range buckets(t, d, "r") {
		m := b.Lookup("meta").StringValue()
		counts[m] = append(counts[m], count(t, b))
	}
	for m, want := range map[string]string{"count": "[1000 1]", "span": "[2 1 1]", "size": "[10 1]", "schema": "[2 1]"} {
		got := counts[m]
		if m == "span" {
			// By start time: -1h, 0h, +2h (two).
			got = nil
			for _, b := range buckets(t, d, "r") {
				if b.Lookup("meta").StringValue() == "span" {
					got = append(got, count(t, b))
				}
			}
		}
		if fmt.Sprint(sorted(got, m)) != want {
			t.Fatalf("%s: bucket sizes %v, want %s", m, got, want)
		}
	}
}

func sorted(x []int, m string) []int {
	if m == "span" {
		out := append([]int(nil), x...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] > out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	}
	return x
}

func TestConcurrentInserts(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "cc", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "host"}})
	coll := d.Collection("cc")
	const workers, per = 8, 600
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i += 50 {
				var docs []any
				for j := i; j < i+50; j++ {
					docs = append(docs, bson.D{{Key: "t", Value: t0.Add(time.Duration(j) * time.Second)}, {Key: "host", Value: fmt.Sprint("h", (w+j)%3)}, {Key: "w", Value: w}, {Key: "j", Value: j}})
				}
				if _, err := coll.InsertMany(c, docs, options.InsertMany().SetOrdered(w%2 == 0)); err != nil {
					errc <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	total := 0
	for _, b := range buckets(t, d, "cc") {
		n := count(t, b)
		if n > 1000 {
			t.Fatalf("bucket of %d measurements", n)
		}
		// Every column has the bucket's positions and no more.
		for _, f := range []string{"t", "w", "j"} {
			els, _ := b.Lookup("data", f).Document().Elements()
			if len(els) != n || els[n-1].Key() != fmt.Sprint(n-1) {
				t.Fatalf("column %s of %d entries in a bucket of %d", f, len(els), n)
			}
		}
		total += n
	}
	if total != workers*per {
		t.Fatalf("%d measurements stored, want %d", total, workers*per)
	}
}

func errorAs(err error, target *mongo.BulkWriteException) bool {
	return errors.As(err, target)
}

// TestRetryAndWriteConcern: a retryable insert sent twice (same lsid and
// txnNumber) inserts its measurements once; inserts take every write
// concern.
func TestRetryAndWriteConcern(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "rt", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(c)
	cmd := bson.D{{Key: "insert", Value: "rt"}, {Key: "documents", Value: bson.A{
		bson.D{{Key: "t", Value: t0}, {Key: "m", Value: 1}},
		bson.D{{Key: "t", Value: t0.Add(time.Second)}, {Key: "m", Value: 2}},
	}}, {Key: "txnNumber", Value: int64(1000)}}
	for i := 0; i < 2; i++ {
		var res bson.M
		if err := d.RunCommand(mongo.NewSessionContext(c, sess), cmd).Decode(&res); err != nil || res["n"] != int32(2) {
			t.Fatalf("attempt %d: %v %v", i, res, err)
		}
	}
	if n := countMeasurements(t, d, "rt"); n != 2 {
		t.Fatalf("%d measurements after the retried insert, want 2", n)
	}
	for _, wc := range []bson.D{
		{{Key: "w", Value: 1}, {Key: "j", Value: true}},
		{{Key: "w", Value: "majority"}},
		{{Key: "w", Value: 0}},
	} {
		var res bson.M
		err := d.RunCommand(c, bson.D{{Key: "insert", Value: "rt"}, {Key: "documents", Value: bson.A{bson.D{{Key: "t", Value: t0}, {Key: "m", Value: 1}}}},
			{Key: "writeConcern", Value: wc}}).Decode(&res)
		if err != nil && wc[0].Value != 0 {
			t.Fatalf("write concern %v: %v %v", wc, res, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for countMeasurements(t, d, "rt") != 5 {
		if time.Now().After(deadline) {
			t.Fatalf("%d measurements, want 5", countMeasurements(t, d, "rt"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestReopenAfterRestart: after a restart, a series goes on in its stored
// bucket (mongod 7.0 reopens it) rather than a new one.
func TestReopenAfterRestart(t *testing.T) {
	t.Parallel()
	open := reopener(t)
	db, d := open()
	c := testenv.Ctx(t)
	createTS(t, d, "ro", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	insert := func(d *mongo.Database, from, n int) {
		var docs []any
		for i := from; i < from+n; i++ {
			docs = append(docs, bson.D{{Key: "t", Value: t0.Add(time.Duration(i) * time.Second)}, {Key: "m", Value: bson.D{{Key: "h", Value: i % 2}}}, {Key: "v", Value: i}})
		}
		if _, err := d.Collection("ro").InsertMany(c, docs); err != nil {
			t.Fatal(err)
		}
	}
	insert(d, 0, 20)
	before := buckets(t, d, "ro")
	db.Close()
	db, d = open()
	defer db.Close()
	insert(d, 20, 20)
	after := buckets(t, d, "ro")
	if len(before) != 2 || len(after) != 2 {
		t.Fatalf("%d buckets before the restart, %d after", len(before), len(after))
	}
	for _, b := range after {
		if n := count(t, b); n != 20 {
			t.Fatalf("bucket of %d measurements after the restart: %v", n, b)
		}
		// The positions go on: 0..19.
		if _, err := b.LookupErr("data", "v", "19"); err != nil {
			t.Fatalf("bucket %v", b)
		}
	}
	r, err := testenv.RunCmd(t, d, bson.D{{Key: "collStats", Value: "ro"}})
	if err != nil || r.Lookup("timeseries", "numBucketsReopened").AsInt64() != 2 {
		t.Fatalf("collStats %v %v", r, err)
	}
}

// TestConcurrentInsertOne: many clients inserting one measurement per
// command (retryable, as the driver sends them) are combined into shared
// bucket writes; every measurement is stored once.
func TestConcurrentInsertOne(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "one", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "host"}})
	coll := d.Collection("one")
	const workers, per = 8, 150
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0.Add(time.Duration(i) * time.Second)}, {Key: "host", Value: i % 3}, {Key: "w", Value: w}, {Key: "i", Value: i}}); err != nil {
					errc <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	seen := map[[2]int32]bool{}
	for _, b := range buckets(t, d, "one") {
		n := count(t, b)
		ws, _ := b.Lookup("data", "w").Document().Elements()
		is, _ := b.Lookup("data", "i").Document().Elements()
		if len(ws) != n || len(is) != n {
			t.Fatalf("bucket columns of %d and %d entries, %d measurements", len(ws), len(is), n)
		}
		for k := range ws {
			key := [2]int32{ws[k].Value().Int32(), is[k].Value().Int32()}
			if seen[key] {
				t.Fatalf("measurement %v stored twice", key)
			}
			seen[key] = true
		}
	}
	if len(seen) != workers*per {
		t.Fatalf("%d measurements stored, want %d", len(seen), workers*per)
	}
}
