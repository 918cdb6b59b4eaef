package lode_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func insertBatches(t *testing.T, coll *mongo.Collection, n int, gen func(i int) any) {
	t.Helper()
	const batch = 10000
	docs := make([]any, 0, batch)
	for i := 0; i < n; i++ {
		docs = append(docs, gen(i))
		if len(docs) == batch || i == n-1 {
			if _, err := coll.InsertMany(ctx(t), docs, options.InsertMany().SetOrdered(false)); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
}

func createIndex(t *testing.T, coll *mongo.Collection, keys bson.D) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("createIndex %v: %v", keys, time.Since(start)) }()
	// Building over a full-size seed can take minutes on a loaded machine.
	c, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: keys}); err != nil {
		t.Fatal(err)
	}
}

// Seed 003: 100k events over 10 hosts and 30 days. The host-and-day query
// examines exactly the keys it returns with {host:1, time:1}, and more with
// {time:1, host:1}.
func TestExplainSeed003EventLog(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100k events")
	}
	_, db := open(t)
	coll := db.Collection("events")
	const n = 100000
	base := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	step := 30 * 24 * time.Hour / n
	rng := rand.New(rand.NewPCG(3, 3))
	insertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "host", Value: fmt.Sprintf("127.0.0.%d", rng.IntN(10))},
			{Key: "time", Value: base.Add(time.Duration(i) * step)}, {Key: "path", Value: "/apache_pb.gif"}}
	})
	filter := bson.D{{Key: "host", Value: "127.0.0.1"}, {Key: "time", Value: bson.D{
		{Key: "$gte", Value: time.Date(2000, 10, 10, 0, 0, 0, 0, time.UTC)},
		{Key: "$lt", Value: time.Date(2000, 10, 11, 0, 0, 0, 0, time.UTC)}}}}
	dayTotal := count(t, coll, bson.D{{Key: "time", Value: filter[1].Value}})
	want := count(t, coll, filter)
	if want < 200 || dayTotal < 3000 {
		t.Fatalf("data: %d matches, %d that day", want, dayTotal)
	}
	run := func(index string) (keys, returned int64) {
		res := explain(t, db, bson.D{{Key: "find", Value: "events"}, {Key: "filter", Value: filter}}, "executionStats")
		ix := findStage(res.Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN")
		if ix == nil || ix.Lookup("indexName").StringValue() != index {
			t.Fatalf("winning plan %v, want IXSCAN %s", res.Lookup("queryPlanner", "winningPlan"), index)
		}
		es := res.Lookup("executionStats").Document()
		return es.Lookup("totalKeysExamined").AsInt64(), es.Lookup("nReturned").AsInt64()
	}
	createIndex(t, coll, bson.D{{Key: "time", Value: 1}, {Key: "host", Value: 1}})
	keys, got := run("time_1_host_1")
	if got != want || keys != dayTotal {
		t.Errorf("time_1_host_1: nReturned %d keysExamined %d, want %d and %d", got, keys, want, dayTotal)
	}
	// With both indexes the trial picks host_1_time_1.
	createIndex(t, coll, bson.D{{Key: "host", Value: 1}, {Key: "time", Value: 1}})
	keys, got = run("host_1_time_1")
	if got != want || keys != want {
		t.Errorf("host_1_time_1: nReturned %d keysExamined %d, want both %d", got, keys, want)
	}
}

// Seed 002: $all of two $elemMatch on metadata uses the compound multikey
// index with the first pair's bounds.
func TestExplainSeed002Metadata(t *testing.T) {
	_, db := open(t)
	coll := db.Collection("images")
	// The acceptance size is 100k images (the compound multikey
	// index holds one key per metadata element, 12 per image, as MongoDB's
	// does); -short runs 12k.
	n := 100000
	if testing.Short() {
		n = 12000
	}
	insertBatches(t, coll, n, func(i int) any { return seed002Doc(i) })
	createIndex(t, coll, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	first := bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: "MIME type"}, {Key: "value", Value: "image/jpeg"}}}}
	second := bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: "Flash"}, {Key: "value", Value: "No, auto"}}}}
	filter := bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: bson.A{first, second}}}}}
	firstCount := count(t, coll, bson.D{{Key: "metadata", Value: first}})
	want := count(t, coll, filter)
	res := explain(t, db, bson.D{{Key: "find", Value: "images"}, {Key: "filter", Value: filter}}, "executionStats")
	wp := res.Lookup("queryPlanner", "winningPlan").Document()
	ix := findStage(wp, "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != "metadata.key_1_metadata.value_1" {
		t.Fatalf("winning plan %v", wp)
	}
	if !ix.Lookup("isMultiKey").Boolean() {
		t.Errorf("isMultiKey false: %v", ix)
	}
	bounds := ix.Lookup("indexBounds").String()
	if !strings.Contains(bounds, `[\"MIME type\", \"MIME type\"]`) || !strings.Contains(bounds, `[\"image/jpeg\", \"image/jpeg\"]`) {
		t.Errorf("bounds %s", bounds)
	}
	es := res.Lookup("executionStats").Document()
	if got := es.Lookup("nReturned").AsInt64(); got != want || want != int64((n+11)/12) {
		t.Errorf("nReturned %d, want %d (= ceil(n/12))", got, want)
	}
	if docs := es.Lookup("totalDocsExamined").AsInt64(); docs > firstCount {
		t.Errorf("totalDocsExamined %d > %d matching the first pair", docs, firstCount)
	}
}

// Seed 001: an anchored regex on _id scans the _id index from "123_" up to
// "123`".
func TestExplainSeed001RegexPrefix(t *testing.T) {
	_, db := open(t)
	coll := db.Collection("c")
	insertBatches(t, coll, 2000, func(i int) any {
		return bson.D{{Key: "_id", Value: fmt.Sprintf("%d_%d", i%500, i)}}
	})
	res := explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.Regex{Pattern: "^123_"}}}}}, "executionStats")
	ix := findStage(res.Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != "_id_" {
		t.Fatalf("plan %v", res.Lookup("queryPlanner", "winningPlan"))
	}
	vals, _ := ix.Lookup("indexBounds", "_id").Array().Values()
	var got []string
	for _, v := range vals {
		got = append(got, v.StringValue())
	}
	if want := []string{`["123_", "123` + "`" + `")`, `[/^123_/, /^123_/]`}; !reflect.DeepEqual(got, want) {
		t.Errorf("bounds %q, want %q", got, want)
	}
	if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != 4 {
		t.Errorf("nReturned %d, want 4", n)
	}
	if k := res.Lookup("executionStats", "totalKeysExamined").AsInt64(); k != 4 {
		t.Errorf("totalKeysExamined %d, want 4", k)
	}
}
