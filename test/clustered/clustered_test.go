// Package clustered_test checks clustered collections (create's
// clusteredIndex) through the Go driver: records kept in _id order with
// no separate _id index, as mongod 7.0.
package clustered_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// createClustered creates name clustered on _id (with expireAfterSeconds
// when secs >= 0).
func createClustered(t *testing.T, d *mongo.Database, name string, secs int64) *mongo.Collection {
	t.Helper()
	o := options.CreateCollection().SetClusteredIndex(bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}})
	if secs >= 0 {
		o.SetExpireAfterSeconds(secs)
	}
	if err := d.CreateCollection(testenv.Ctx(t), name, o); err != nil {
		t.Fatal(err)
	}
	return d.Collection(name)
}

// ids returns the int32 _ids of coll's documents matching filter.
func ids(t *testing.T, coll *mongo.Collection, filter bson.D, opts ...options.Lister[options.FindOptions]) []int32 {
	t.Helper()
	cur, err := coll.Find(testenv.Ctx(t), filter, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID int32 `bson:"_id"`
	}
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

func TestClusteredCRUD(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "cl", -1)
	// Inserted out of order: a scan returns them in _id order.
	var docs []any
	for _, i := range []int32{5, 1, 9, 3, 7, 2, 8, 4, 6, 0} {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 3}, {Key: "s", Value: fmt.Sprint("v", i)}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	got := ids(t, coll, bson.D{})
	if fmt.Sprint(got) != "[0 1 2 3 4 5 6 7 8 9]" {
		t.Fatalf("natural order %v, want _id order", got)
	}
	got = ids(t, coll, bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: -1}}))
	if fmt.Sprint(got) != "[9 8 7 6 5 4 3 2 1 0]" {
		t.Fatalf("reverse natural order %v", got)
	}
	// A duplicate _id is refused as by the _id index.
	_, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: int32(3)}})
	if we := testenv.WriteErr(t, err); we.Code != 11000 {
		t.Fatalf("duplicate _id: %v", err)
	}
	// _id ranges and equality.
	got = ids(t, coll, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 3}, {Key: "$lt", Value: 6}}}})
	if fmt.Sprint(got) != "[3 4 5]" {
		t.Fatalf("range: %v", got)
	}
	got = ids(t, coll, bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 6}}}}, options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}))
	if fmt.Sprint(got) != "[9 8 7]" {
		t.Fatalf("descending range: %v", got)
	}
	got = ids(t, coll, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{2, 8, 11}}}}})
	if fmt.Sprint(got) != "[2 8]" {
		t.Fatalf("$in: %v", got)
	}
	// A secondary index reaches the records by their cluster key.
	testenv.CreateIndex(t, coll, bson.D{{Key: "g", Value: 1}})
	got = ids(t, coll, bson.D{{Key: "g", Value: 1}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetHint("g_1"))
	if fmt.Sprint(got) != "[1 4 7]" {
		t.Fatalf("secondary index: %v", got)
	}
	// Updates: by _id, through the secondary index, multi.
	if r, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 4}}, bson.D{{Key: "$set", Value: bson.D{{Key: "g", Value: 2}}}}); err != nil || r.ModifiedCount != 1 {
		t.Fatalf("update: %v %v", r, err)
	}
	if r, err := coll.UpdateMany(c, bson.D{{Key: "g", Value: 2}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil || r.ModifiedCount != 4 {
		t.Fatalf("update many: %+v %v", r, err)
	}
	got = ids(t, coll, bson.D{{Key: "g", Value: 2}}, options.Find().SetHint("g_1").SetSort(bson.D{{Key: "_id", Value: 1}}))
	if fmt.Sprint(got) != "[2 4 5 8]" {
		t.Fatalf("after update: %v", got)
	}
	// _id is immutable.
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 4}}, bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 40}}}})
	if we := testenv.WriteErr(t, err); we.Code != 66 {
		t.Fatalf("changing _id: %v", err)
	}
	// findAndModify and replace.
	var fm bson.M
	if err := coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "seven"}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&fm); err != nil || fm["s"] != "seven" {
		t.Fatalf("findAndModify: %v %v", fm, err)
	}
	if _, err := coll.ReplaceOne(c, bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "r", Value: true}}); err != nil {
		t.Fatal(err)
	}
	if m := testenv.FindDoc(t, coll, int32(0)); m["r"] != true {
		t.Fatalf("replace: %v", m)
	}
	// Upsert of a new _id lands in order.
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: int32(-1)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "g", Value: 0}}}}, options.UpdateOne().SetUpsert(true)); err != nil {
		t.Fatal(err)
	}
	// Deletes: by _id range, through the index.
	if r, err := coll.DeleteMany(c, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 8}}}}); err != nil || r.DeletedCount != 2 {
		t.Fatalf("delete range: %v %v", r, err)
	}
	if r, err := coll.DeleteMany(c, bson.D{{Key: "g", Value: 0}}); err != nil || r.DeletedCount != 3 {
		t.Fatalf("delete by index: %+v %v", r, err)
	}
	got = ids(t, coll, bson.D{}) // 0 lost its g with the replacement
	if fmt.Sprint(got) != "[0 1 2 4 5 7]" {
		t.Fatalf("after deletes: %v", got)
	}
	got = ids(t, coll, bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 0}}}}, options.Find().SetHint("g_1").SetSort(bson.D{{Key: "_id", Value: 1}}))
	if fmt.Sprint(got) != "[1 2 4 5 7]" {
		t.Fatalf("index after deletes: %v", got)
	}
	// The same _id can be inserted again once deleted.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: int32(9)}, {Key: "g", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	if n := testenv.Count(t, coll, bson.D{{Key: "g", Value: 0}}); n != 1 {
		t.Fatalf("count g=0: %d", n)
	}
	// Numbers that compare equal are one cluster key (as one _id index
	// key), whatever their type.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 42.0}}); err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(c, bson.D{{Key: "_id", Value: int64(42)}})
	if we := testenv.WriteErr(t, err); we.Code != 11000 {
		t.Fatalf("42 after 42.0: %v", err)
	}
	// A cluster key past 8 MiB is refused, as mongod refuses such a
	// RecordId.
	_, err = coll.InsertOne(c, bson.D{{Key: "_id", Value: strings.Repeat("x", 9<<20)}})
	if we := testenv.WriteErr(t, err); we.Code != 5894900 {
		t.Fatalf("9 MiB _id: %v", err)
	}
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "validate", Value: "cl"}})
	testenv.WantOK(t, res, err)
	if v := testenv.Field(t, res, "valid"); !v.Boolean() {
		t.Fatalf("validate: %v", res)
	}
}

func TestClusteredListings(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "cl", 3600)
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	cur, err := coll.Indexes().List(c)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(c, &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 {
		t.Fatalf("indexes: %v", specs)
	}
	want := `{"v": {"$numberInt":"2"},"key": {"_id": {"$numberInt":"1"}},"name": "_id_","unique": true,"clustered": true}`
	if got := specs[0].String(); got != want {
		t.Fatalf("clustered index:\n got %s\nwant %s", got, want)
	}
	infos, err := d.ListCollectionSpecifications(c, bson.D{{Key: "name", Value: "cl"}})
	if err != nil || len(infos) != 1 {
		t.Fatal(infos, err)
	}
	opts := infos[0].Options
	if got := opts.Lookup("clusteredIndex").Document().String(); got != `{"v": {"$numberInt":"2"},"key": {"_id": {"$numberInt":"1"}},"name": "_id_","unique": true}` {
		t.Fatalf("options.clusteredIndex: %s", got)
	}
	if v := opts.Lookup("expireAfterSeconds"); v.Int64() != 3600 {
		t.Fatalf("options.expireAfterSeconds: %v", v)
	}
	if infos[0].IDIndex.Name != "" {
		t.Fatalf("a clustered collection has no idIndex: %v", infos[0].IDIndex)
	}
	// The clustered index cannot be dropped; "*" keeps it.
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "dropIndexes", Value: "cl"}, {Key: "index", Value: "_id_"}})
	testenv.WantCode(t, "drop the clustered index", err, 5979800)
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "dropIndexes", Value: "cl"}, {Key: "index", Value: bson.D{{Key: "_id", Value: 1}}}})
	testenv.WantCode(t, "drop the clustered index by key", err, 5979800)
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "dropIndexes", Value: "cl"}, {Key: "index", Value: bson.A{"a_1", "_id_"}}})
	testenv.WantCode(t, "drop the clustered index in a list", err, 5979800)
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "dropIndexes", Value: "cl"}, {Key: "index", Value: "*"}})
	testenv.WantOK(t, res, err)
	testenv.WantInt32(t, res, "nIndexesWas", 1) // a_1: the clustered index is not counted
	if n, err := coll.Indexes().List(c); err != nil {
		t.Fatal(err)
	} else if var_ := n.RemainingBatchLength(); var_ != 1 {
		t.Fatalf("indexes after dropIndexes *: %d", var_)
	}
	// As in mongod, the clustered index is in no index count or size
	// (it is the records), and creating {_id: 1} changes nothing.
	res, err = testenv.RunCmd(t, d, bson.D{{Key: "collStats", Value: "cl"}})
	testenv.WantOK(t, res, err)
	if n := testenv.Field(t, res, "nindexes").AsInt64(); n != 0 {
		t.Fatalf("collStats nindexes %d: %v", n, res)
	}
	if sz := testenv.Field(t, res, "indexSizes").Document().String(); sz != "{}" {
		t.Fatalf("collStats indexSizes %s", sz)
	}
	res, err = testenv.RunCmd(t, d, bson.D{{Key: "createIndexes", Value: "cl"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "name", Value: "id_again"}}}}})
	testenv.WantOK(t, res, err)
	testenv.WantInt32(t, res, "numIndexesBefore", 0)
	testenv.WantInt32(t, res, "numIndexesAfter", 0)
}

func TestClusteredCreateErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	for _, tc := range []struct {
		name string
		opts bson.D
		code int32
	}{
		{"not unique", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: false}}}}, 5979700},
		{"other key", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "unique", Value: true}}}}, 197},
		{"no unique", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}}}}, 40414},
		{"unknown field", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}, {Key: "sparse", Value: true}}}}, 40415},
		{"legacy form", bson.D{{Key: "clusteredIndex", Value: true}}, 5979703},
		{"wrong type", bson.D{{Key: "clusteredIndex", Value: 1}}, 14},
		{"v1", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}, {Key: "v", Value: 1}}}}, 5979704},
		{"expiry alone", bson.D{{Key: "expireAfterSeconds", Value: 10}}, 72},
		{"negative expiry", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}, {Key: "expireAfterSeconds", Value: -1}}, 72},
		{"with idIndex", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}, {Key: "idIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "name", Value: "_id_"}, {Key: "v", Value: 2}}}}, 72},
		{"capped with size", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}, {Key: "capped", Value: true}, {Key: "size", Value: 4096}}, 6049200},
		{"max", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}, {Key: "max", Value: 10}}, 6049204},
		{"capped", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}, {Key: "capped", Value: true}, {Key: "expireAfterSeconds", Value: 10}}, 6127800},
		{"collation", bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "fr"}}}}, 238},
	} {
		cmd := append(bson.D{{Key: "create", Value: "c_" + tc.name}}, tc.opts...)
		_, err := testenv.RunCmd(t, d, cmd)
		testenv.WantCode(t, tc.name, err, tc.code)
	}
	// clusteredIndex: false is no clustering.
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "create", Value: "plain"}, {Key: "clusteredIndex", Value: false}})
	testenv.WantOK(t, res, err)
}

func TestClusteredExplain(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "cl", -1)
	testenv.InsertBatches(t, coll, 200, func(i int) any { return bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 10)}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	_ = c
	plan := func(filter bson.D) bson.Raw {
		res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "cl"}, {Key: "filter", Value: filter}}, "executionStats")
		return res
	}
	res := plan(bson.D{{Key: "_id", Value: 17}})
	wp := testenv.WinningPlan(res)
	if s := wp.Lookup("stage").StringValue(); s != "CLUSTERED_IXSCAN" {
		t.Fatalf("equality: %v", wp)
	}
	if wp.Lookup("minRecord").AsInt64() != 17 || wp.Lookup("maxRecord").AsInt64() != 17 || wp.Lookup("direction").StringValue() != "forward" {
		t.Fatalf("equality bounds: %v", wp)
	}
	if n := testenv.Field(t, res, "executionStats.totalDocsExamined").AsInt64(); n != 1 {
		t.Fatalf("equality examined %d documents", n)
	}
	if n := testenv.Field(t, res, "executionStats.totalKeysExamined").AsInt64(); n != 0 {
		t.Fatalf("equality examined %d keys", n)
	}
	res = plan(bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 20}, {Key: "$lt", Value: 30}}}})
	wp = testenv.WinningPlan(res)
	if wp.Lookup("stage").StringValue() != "CLUSTERED_IXSCAN" || wp.Lookup("minRecord").AsInt64() != 20 || wp.Lookup("maxRecord").AsInt64() != 30 {
		t.Fatalf("range: %v", wp)
	}
	if n := testenv.Field(t, res, "executionStats.nReturned").AsInt64(); n != 10 {
		t.Fatalf("range returned %d", n)
	}
	if n := testenv.Field(t, res, "executionStats.totalDocsExamined").AsInt64(); n > 11 {
		t.Fatalf("range examined %d documents", n)
	}
	// One-sided ranges show only the bound their predicate gives.
	wp = testenv.WinningPlan(plan(bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 10}}}}))
	if _, err := wp.LookupErr("minRecord"); err == nil || wp.Lookup("maxRecord").AsInt64() != 10 {
		t.Fatalf("$lt: %v", wp)
	}
	wp = testenv.WinningPlan(plan(bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 189}}}}))
	if _, err := wp.LookupErr("maxRecord"); err == nil || wp.Lookup("minRecord").AsInt64() != 189 {
		t.Fatalf("$gt: %v", wp)
	}
	res = plan(bson.D{{Key: "b", Value: 1}})
	if wp := testenv.WinningPlan(res); wp.Lookup("stage").StringValue() != "COLLSCAN" {
		t.Fatalf("no _id predicate: %v", wp)
	} else if _, err := wp.LookupErr("minRecord"); err == nil {
		t.Fatalf("unbounded scan with minRecord: %v", wp)
	}
	res = plan(bson.D{{Key: "a", Value: 3}})
	if st := testenv.Stages(testenv.WinningPlan(res)); fmt.Sprint(st) != "[FETCH IXSCAN]" {
		t.Fatalf("secondary: %v", st)
	}
	if n := testenv.Field(t, res, "executionStats.nReturned").AsInt64(); n != 20 {
		t.Fatalf("secondary returned %d", n)
	}
}

func TestClusteredTTL(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "ttl", 60)
	now := time.Now()
	for i, age := range []time.Duration{2 * time.Hour, 30 * time.Second, 5 * time.Minute, -time.Minute} {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: now.Add(-age)}, {Key: "i", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	// Not dates: never expire.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: 9}}); err != nil {
		t.Fatal(err)
	}
	// The monitor's next pass (every second) removes the two dates older
	// than 60 seconds.
	testenv.SetParameter(t, d.Client().Database("admin"), "ttlMonitorSleepSecs", 1)
	for deadline := time.Now().Add(15 * time.Second); testenv.Count(t, coll, bson.D{}) != 3; {
		if time.Now().After(deadline) {
			t.Fatalf("TTL left %d documents, want 3", testenv.Count(t, coll, bson.D{}))
		}
		time.Sleep(100 * time.Millisecond)
	}
	var left []struct {
		I int `bson:"i"`
	}
	cur, err := coll.Find(c, bson.D{}, options.Find().SetSort(bson.D{{Key: "i", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(c, &left); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(left) != "[{1} {3} {9}]" {
		t.Fatalf("left after TTL: %v", left)
	}
}

func TestClusteredRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := testenv.Ctx(t)
	d := db.Client().Database("test")
	coll := createClustered(t, d, "cl", -1)
	testenv.InsertBatches(t, coll, 300, func(i int) any { return bson.D{{Key: "_id", Value: int32(299 - i)}, {Key: "a", Value: int32(i % 5)}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	db.Close()
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d = db.Client().Database("test")
	coll = d.Collection("cl")
	if n := testenv.Count(t, coll, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 100}}}}); n != 100 {
		t.Fatalf("after reopen: %d", n)
	}
	// New records get fresh record ids: no clash in the secondary index.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: int32(1000)}, {Key: "a", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	if n := testenv.Count(t, coll, bson.D{{Key: "a", Value: 1}}); n != 61 {
		t.Fatalf("secondary count after reopen: %d", n)
	}
	got := ids(t, coll, bson.D{}, options.Find().SetLimit(3))
	if fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("order after reopen: %v", got)
	}
	// A transaction's inserts note their record ids too: after another
	// reopen, new records still get ids of their own.
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.WithTransaction(c, func(sc context.Context) (any, error) {
		return coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(2000)}, {Key: "a", Value: int32(1)}})
	}); err != nil {
		t.Fatal(err)
	}
	sess.EndSession(c)
	db.Close()
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d = db.Client().Database("test")
	coll = d.Collection("cl")
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: int32(3000)}, {Key: "a", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	if n := testenv.Count(t, coll, bson.D{{Key: "a", Value: 1}}); n != 63 {
		t.Fatalf("secondary count after the second reopen: %d", n)
	}
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "validate", Value: "cl"}})
	testenv.WantOK(t, res, err)
	if v := testenv.Field(t, res, "valid"); !v.Boolean() {
		t.Fatalf("validate: %v", res)
	}
}

func TestClusteredCandidatesAndTransactions(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "cl", -1)
	testenv.InsertBatches(t, coll, 1000, func(i int) any { return bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 50)}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	// Both the bounded scan and the index plan are candidates; whichever
	// wins (and is cached), the answers are the same.
	for round := 0; round < 3; round++ {
		for _, tc := range []struct {
			filter bson.D
			want   int64
		}{
			{bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 990}}}, {Key: "a", Value: bson.D{{Key: "$lt", Value: 45}}}}, 5},
			{bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 500}}}, {Key: "a", Value: 7}}, 10},
			{bson.D{{Key: "a", Value: 3}, {Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{3, 53, 54, 103}}}}}, 3},
		} {
			if n := testenv.Count(t, coll, tc.filter); n != tc.want {
				t.Fatalf("round %d: count %v = %d, want %d", round, tc.filter, n, tc.want)
			}
			cur, err := coll.Find(c, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var docs []bson.M
			if err := cur.All(c, &docs); err != nil || int64(len(docs)) != tc.want {
				t.Fatalf("round %d: find %v: %d %v", round, tc.filter, len(docs), err)
			}
		}
	}
	// Sorted by _id without a blocking sort, either way.
	res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "cl"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 10}}}}}, {Key: "sort", Value: bson.D{{Key: "_id", Value: -1}}}, {Key: "limit", Value: 3}}, "queryPlanner")
	if st := fmt.Sprint(testenv.Stages(testenv.WinningPlan(res))); st != "[LIMIT CLUSTERED_IXSCAN]" {
		t.Fatalf("sorted range plan %s", st)
	}
	if dir := testenv.FindStage(testenv.WinningPlan(res), "CLUSTERED_IXSCAN").Lookup("direction").StringValue(); dir != "backward" {
		t.Fatalf("direction %s", dir)
	}
	// A transaction's writes: its own reads see them, a duplicate _id
	// fails inside it, and the commit publishes them.
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(c)
	_, err = sess.WithTransaction(c, func(sc context.Context) (any, error) {
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(5000)}, {Key: "a", Value: int32(99)}}); err != nil {
			return nil, err
		}
		if _, err := coll.DeleteOne(sc, bson.D{{Key: "_id", Value: int32(0)}}); err != nil {
			return nil, err
		}
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: int32(0)}, {Key: "a", Value: int32(99)}}); err != nil {
			return nil, err // deleted in this transaction: free again
		}
		if n, err := coll.CountDocuments(sc, bson.D{{Key: "a", Value: 99}}); err != nil || n != 2 {
			return nil, fmt.Errorf("count in the transaction: %d %v", n, err)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := testenv.Count(t, coll, bson.D{{Key: "a", Value: 99}}); n != 2 {
		t.Fatalf("after commit: %d", n)
	}
	if m := testenv.FindDoc(t, coll, int32(0)); m["a"] != int32(99) {
		t.Fatalf("replaced _id 0: %v", m)
	}
}

func TestClusteredSecondaryKinds(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "cl", -1)
	old := time.Now().Add(-2 * time.Hour)
	for i := 0; i < 50; i++ {
		doc := bson.D{{Key: "_id", Value: int32(i)},
			{Key: "loc", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{float64(i) / 10, 0.0}}}},
			{Key: "tags", Value: bson.A{fmt.Sprint("t", i%3), fmt.Sprint("u", i%5)}},
			{Key: "email", Value: fmt.Sprint("u", i, "@x")}}
		if i < 10 {
			doc = append(doc, bson.E{Key: "at", Value: old})
		}
		if _, err := coll.InsertOne(c, doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, keys := range []bson.D{{{Key: "loc", Value: "2dsphere"}}, {{Key: "tags", Value: 1}}, {{Key: "at", Value: 1}}} {
		testenv.CreateIndex(t, coll, keys)
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	// $near through the 2dsphere index, nearest first.
	got := ids(t, coll, bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{2.02, 0.0}}}}}}}}}, options.Find().SetLimit(3))
	if fmt.Sprint(got) != "[20 21 19]" {
		t.Fatalf("$near: %v", got)
	}
	// A multikey index: each document once.
	if n := testenv.Count(t, coll, bson.D{{Key: "tags", Value: bson.D{{Key: "$in", Value: bson.A{"t1", "u1"}}}}}); n != 23 { // 17 + 10 - 4 in both
		t.Fatalf("multikey $in count %d", n)
	}
	// A unique secondary index.
	_, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: int32(100)}, {Key: "email", Value: "u7@x"}})
	if we := testenv.WriteErr(t, err); we.Code != 11000 {
		t.Fatalf("unique secondary: %v", err)
	}
	// A TTL index on another field expires through its entries.
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "cl"}, {Key: "index", Value: bson.D{{Key: "name", Value: "at_1"}, {Key: "expireAfterSeconds", Value: 60}}}})
	testenv.WantOK(t, res, err)
	testenv.SetParameter(t, d.Client().Database("admin"), "ttlMonitorSleepSecs", 1)
	for deadline := time.Now().Add(15 * time.Second); testenv.Count(t, coll, bson.D{}) != 40; {
		if time.Now().After(deadline) {
			t.Fatalf("TTL left %d documents, want 40", testenv.Count(t, coll, bson.D{}))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := ids(t, coll, bson.D{}, options.Find().SetLimit(1)); fmt.Sprint(got) != "[10]" {
		t.Fatalf("first after TTL: %v", got)
	}
}

func TestClusteredCollModExpiry(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "cl", -1)
	expiry := func() (int64, bool) {
		infos, err := d.ListCollectionSpecifications(c, bson.D{{Key: "name", Value: "cl"}})
		if err != nil || len(infos) != 1 {
			t.Fatal(infos, err)
		}
		v, err := infos[0].Options.LookupErr("expireAfterSeconds")
		if err != nil {
			return 0, false
		}
		return v.Int64(), true
	}
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "cl"}, {Key: "expireAfterSeconds", Value: 60}})
	testenv.WantOK(t, res, err)
	if n, ok := expiry(); !ok || n != 60 {
		t.Fatalf("after collMod 60: %d %v", n, ok)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: time.Now().Add(-time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	testenv.SetParameter(t, d.Client().Database("admin"), "ttlMonitorSleepSecs", 1)
	for deadline := time.Now().Add(15 * time.Second); testenv.Count(t, coll, bson.D{}) != 0; {
		if time.Now().After(deadline) {
			t.Fatal("the TTL monitor did not apply the expiry set by collMod")
		}
		time.Sleep(100 * time.Millisecond)
	}
	res, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "cl"}, {Key: "expireAfterSeconds", Value: "off"}})
	testenv.WantOK(t, res, err)
	if _, ok := expiry(); ok {
		t.Fatal("expireAfterSeconds still set after off")
	}
	if err := d.CreateCollection(c, "plain"); err != nil {
		t.Fatal(err)
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "plain"}, {Key: "expireAfterSeconds", Value: 60}})
	testenv.WantCode(t, "collMod expireAfterSeconds on a plain collection", err, 72)
}

func TestClusteredHints(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := createClustered(t, d, "cl", -1)
	testenv.InsertBatches(t, coll, 60, func(i int) any { return bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(-i)}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: -1}})
	type want struct {
		n          int64
		stage, dir string
		min, max   any // nil: absent
	}
	for _, tc := range []struct {
		name string
		cmd  bson.D
		want want
	}{
		{"hint the clustered index", bson.D{{Key: "find", Value: "cl"}, {Key: "hint", Value: bson.D{{Key: "_id", Value: 1}}}}, want{60, "COLLSCAN", "forward", nil, nil}},
		{"hint it by name", bson.D{{Key: "find", Value: "cl"}, {Key: "filter", Value: bson.D{{Key: "a", Value: -4}}}, {Key: "hint", Value: "_id_"}}, want{1, "COLLSCAN", "forward", nil, nil}},
		{"hint with an _id range", bson.D{{Key: "find", Value: "cl"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 50}}}}}, {Key: "hint", Value: bson.D{{Key: "_id", Value: 1}}}}, want{10, "CLUSTERED_IXSCAN", "forward", int32(50), nil}},
		{"$natural backward with an _id equality", bson.D{{Key: "find", Value: "cl"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 7}}}, {Key: "hint", Value: bson.D{{Key: "$natural", Value: -1}}}}, want{1, "CLUSTERED_IXSCAN", "backward", int32(7), int32(7)}},
		{"$natural backward", bson.D{{Key: "find", Value: "cl"}, {Key: "hint", Value: bson.D{{Key: "$natural", Value: -1}}}}, want{60, "COLLSCAN", "backward", nil, nil}},
		{"min and max", bson.D{{Key: "find", Value: "cl"}, {Key: "hint", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "min", Value: bson.D{{Key: "_id", Value: 58}}}, {Key: "max", Value: bson.D{{Key: "_id", Value: bson.MaxKey{}}}}}, want{2, "CLUSTERED_IXSCAN", "forward", int32(58), bson.MaxKey{}}},
	} {
		res := testenv.Explain(t, d, tc.cmd, "executionStats")
		wp := testenv.WinningPlan(res)
		got := want{n: testenv.Field(t, res, "executionStats.nReturned").AsInt64(), stage: wp.Lookup("stage").StringValue(), dir: wp.Lookup("direction").StringValue()}
		if v, err := wp.LookupErr("minRecord"); err == nil {
			got.min = rawAny(t, v)
		}
		if v, err := wp.LookupErr("maxRecord"); err == nil {
			got.max = rawAny(t, v)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	// A descending hint on the cluster key names no index.
	_, err := testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "cl"}, {Key: "hint", Value: bson.D{{Key: "_id", Value: -1}}}})
	testenv.WantCode(t, "hint {_id: -1}", err, 2)
}

// rawAny decodes v into a Go value.
func rawAny(t *testing.T, v bson.RawValue) any {
	t.Helper()
	var out any
	if err := v.Unmarshal(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClusteredIndexBuildOutOfRecordOrder: a clustered collection's scan
// gives its records in _id order, so an index build over documents
// inserted in another order sees their record ids out of order. A
// compound index whose later field is equal across a group (here
// constant) must then be ordered by record id, not by the scan: the
// build writes its entries into ingested tables, which refuse keys out
// of order.
func TestClusteredIndexBuildOutOfRecordOrder(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := createClustered(t, d, "shuffled", -1)
	// Acceptance size: entries past the build's ingestion threshold (the
	// everyday size writes them in a batch, which Pebble sorts again; the
	// storage test TestIndexLoadDictionary has the ingested case too).
	n := 20_000
	if testenv.Acceptance() {
		n = 200_000
	}
	perm := rand.New(rand.NewPCG(11, 12)).Perm(n)
	batch := make([]any, 0, 10_000)
	for i, id := range perm {
		batch = append(batch, bson.D{{Key: "_id", Value: int32(id)}, {Key: "g", Value: int32(id % 10)}, {Key: "t", Value: int32(1)}})
		if len(batch) == cap(batch) || i == n-1 {
			if _, err := coll.InsertMany(c, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "g", Value: 1}, {Key: "t", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	got, err := coll.CountDocuments(c, bson.D{{Key: "g", Value: 3}, {Key: "t", Value: 1}}, options.Count().SetHint(bson.D{{Key: "g", Value: 1}, {Key: "t", Value: 1}}))
	if err != nil || got != int64(n/10) {
		t.Fatalf("count of g 3 through the index: %d, %v; want %d", got, err, n/10)
	}
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "validate", Value: "shuffled"}, {Key: "full", Value: true}})
	testenv.WantOK(t, res, err)
	if v := testenv.Field(t, res, "valid"); !v.Boolean() {
		t.Fatalf("validate: %v", res)
	}
}
