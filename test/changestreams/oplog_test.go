package changestreams

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// oplogColl is local.oplog.rs.
func oplogColl(db *mongo.Database) *mongo.Collection {
	return db.Client().Database("local").Collection("oplog.rs")
}

// entries reads local.oplog.rs with filter, in $natural order.
func entries(t *testing.T, db *mongo.Database, filter any, opts ...options.Lister[options.FindOptions]) []bson.Raw {
	t.Helper()
	ctx := testenv.Ctx(t)
	cur, err := oplogColl(db).Find(ctx, filter, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	for cur.Next(ctx) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ts reads an entry's timestamp.
func ts(t *testing.T, e bson.Raw) bson.Timestamp {
	t.Helper()
	s, i, ok := e.Lookup("ts").TimestampOK()
	if !ok {
		t.Fatalf("entry without a ts timestamp: %v", e)
	}
	return bson.Timestamp{T: s, I: i}
}

// wantCommon checks the fields every entry has, as mongod writes them:
// ts, t (term, a long), v (2), op, ns and wall.
func wantCommon(t *testing.T, e bson.Raw) {
	t.Helper()
	ts(t, e)
	if n, ok := e.Lookup("t").Int64OK(); !ok || n != 1 {
		t.Fatalf("entry t = %v, want NumberLong(1): %v", e.Lookup("t"), e)
	}
	if v, ok := e.Lookup("v").Int32OK(); !ok || v != 2 {
		t.Fatalf("entry v = %v, want 2: %v", e.Lookup("v"), e)
	}
	if e.Lookup("wall").Type != bson.TypeDateTime || e.Lookup("op").Type != bson.TypeString || e.Lookup("ns").Type != bson.TypeString {
		t.Fatalf("entry lacks wall, op or ns: %v", e)
	}
}

// TestOplogEntryShapes: local.oplog.rs holds an entry per change in
// mongod's format: create as a command, insert with the document, update
// as a $v: 2 diff with o2 the _id, replacement as the new document,
// delete with the _id, and a transaction as one applyOps with its lsid
// and txnNumber.
func TestOplogEntryShapes(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if err := db.CreateCollection(ctx, "shapes"); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("shapes")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 2}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "r", Value: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 10}}); err != nil {
			return nil, err
		}
		return coll.InsertOne(sc, bson.D{{Key: "_id", Value: 11}})
	}); err != nil {
		t.Fatal(err)
	}

	create := entries(t, db, bson.D{{Key: "op", Value: "c"}, {Key: "o.create", Value: "shapes"}})
	if len(create) != 1 || str(create[0], "ns") != "test.$cmd" {
		t.Fatalf("create entries = %v", create)
	}
	wantCommon(t, create[0])
	if create[0].Lookup("ui").Type != bson.TypeBinary {
		t.Fatalf("create entry lacks ui: %v", create[0])
	}

	crud := entries(t, db, bson.D{{Key: "ns", Value: "test.shapes"}}, options.Find().SetSort(bson.D{{Key: "$natural", Value: 1}}))
	if len(crud) != 4 {
		t.Fatalf("entries of test.shapes = %d, want 4: %v", len(crud), crud)
	}
	for _, e := range crud {
		wantCommon(t, e)
		if st, _, _ := e.Lookup("ui").BinaryOK(); st != 4 {
			t.Fatalf("entry ui is not a UUID: %v", e)
		}
	}
	ops := ""
	for _, e := range crud {
		ops += str(e, "op")
	}
	if ops != "iuud" {
		t.Fatalf("ops = %q, want iuud", ops)
	}
	if i32(crud[0], "o", "a") != 1 || i32(crud[0], "o", "_id") != 1 || has(crud[0], "o2") {
		t.Fatalf("insert entry = %v", crud[0])
	}
	if i32(crud[1], "o", "$v") != 2 || i32(crud[1], "o", "diff", "u", "a") != 2 || i32(crud[1], "o2", "_id") != 1 {
		t.Fatalf("update entry = %v", crud[1])
	}
	if r, _ := crud[2].Lookup("o", "r").BooleanOK(); !r || has(crud[2], "o", "$v") || i32(crud[2], "o2", "_id") != 1 {
		t.Fatalf("replacement entry = %v", crud[2])
	}
	if i32(crud[3], "o", "_id") != 1 {
		t.Fatalf("delete entry = %v", crud[3])
	}
	for i := 1; i < len(crud); i++ {
		if a, b := ts(t, crud[i-1]), ts(t, crud[i]); a.After(b) || a.Equal(b) {
			t.Fatalf("entries out of order: %v then %v", a, b)
		}
	}

	txn := entries(t, db, bson.D{{Key: "o.applyOps.ns", Value: "test.shapes"}})
	if len(txn) != 1 {
		t.Fatalf("applyOps entries = %v", txn)
	}
	e := txn[0]
	wantCommon(t, e)
	if str(e, "op") != "c" || str(e, "ns") != "admin.$cmd" || e.Lookup("lsid").Type != bson.TypeEmbeddedDocument {
		t.Fatalf("applyOps entry = %v", e)
	}
	if n, ok := e.Lookup("txnNumber").Int64OK(); !ok || n < 1 {
		t.Fatalf("applyOps entry txnNumber = %v", e.Lookup("txnNumber"))
	}
	inner, _ := e.Lookup("o", "applyOps").Array().Values()
	if len(inner) != 2 {
		t.Fatalf("applyOps holds %d operations, want 2: %v", len(inner), e)
	}
	for k, v := range inner {
		op := v.Document()
		if str(op, "op") != "i" || str(op, "ns") != "test.shapes" || i32(op, "o", "_id") != int32(10+k) || has(op, "ts") {
			t.Fatalf("applyOps[%d] = %v", k, op)
		}
	}
}

// TestOplogReads: $natural order both ways, limit, batchSize with
// getMore, a ts range (mongodump's query), projection, count,
// countDocuments, aggregate and the collection's listing and stats.
func TestOplogReads(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("reads")
	for i := range 10 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	filter := bson.D{{Key: "ns", Value: "test.reads"}}
	fwd := entries(t, db, filter)
	if len(fwd) != 10 {
		t.Fatalf("%d entries, want 10", len(fwd))
	}
	for i, e := range fwd {
		if i32(e, "o", "_id") != int32(i) {
			t.Fatalf("entry %d = %v", i, e)
		}
	}
	// getMore continues a batch of 3 in order.
	batched := entries(t, db, filter, options.Find().SetBatchSize(3))
	if len(batched) != 10 || i32(batched[9], "o", "_id") != 9 {
		t.Fatalf("batched read = %v", batched)
	}
	rev := entries(t, db, filter, options.Find().SetSort(bson.D{{Key: "$natural", Value: -1}}).SetBatchSize(4))
	if len(rev) != 10 || i32(rev[0], "o", "_id") != 9 || i32(rev[9], "o", "_id") != 0 {
		t.Fatalf("reverse read = %v", rev)
	}
	// The newest entry of all, as mongodump finds it.
	var newest bson.Raw
	if err := oplogColl(db).FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "$natural", Value: -1}})).Decode(&newest); err != nil {
		t.Fatal(err)
	}
	if i32(newest, "o", "_id") != 9 {
		t.Fatalf("newest entry = %v", newest)
	}
	var oldest bson.Raw
	if err := oplogColl(db).FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "$natural", Value: 1}})).Decode(&oldest); err != nil {
		t.Fatal(err)
	}
	if str(oldest, "op") != "n" || str(oldest, "o", "msg") != "initiating set" {
		t.Fatalf("oldest entry = %v, want the initiating no-op", oldest)
	}
	// hint {$natural: -1} reads backward; the oplog has no index to hint.
	hinted := entries(t, db, filter, options.Find().SetHint(bson.D{{Key: "$natural", Value: -1}}).SetLimit(1))
	if len(hinted) != 1 || i32(hinted[0], "o", "_id") != 9 {
		t.Fatalf("hint {$natural: -1} = %v", hinted)
	}
	_, err := oplogColl(db).Find(ctx, filter, options.Find().SetHint("_id_"))
	testenv.WantCode(t, "hint of an index on the oplog", err, 2)
	// A sort on ts is the natural order.
	byTS := entries(t, db, filter, options.Find().SetSort(bson.D{{Key: "ts", Value: -1}}).SetLimit(2))
	if len(byTS) != 2 || i32(byTS[0], "o", "_id") != 9 || i32(byTS[1], "o", "_id") != 8 {
		t.Fatalf("sort {ts: -1} limit 2 = %v", byTS)
	}
	// mongodump's window: {$and: [{ts: {$gte: a}}, {ts: {$lte: b}}]}.
	a, b := ts(t, fwd[3]), ts(t, fwd[6])
	window := entries(t, db, bson.D{{Key: "$and", Value: bson.A{
		bson.D{{Key: "ts", Value: bson.D{{Key: "$gte", Value: a}}}},
		bson.D{{Key: "ts", Value: bson.D{{Key: "$lte", Value: b}}}},
	}}})
	if len(window) != 4 || i32(window[0], "o", "_id") != 3 || i32(window[3], "o", "_id") != 6 {
		t.Fatalf("ts window = %v", window)
	}
	after := entries(t, db, bson.D{{Key: "ts", Value: bson.D{{Key: "$gt", Value: b}}}})
	if len(after) != 3 || i32(after[0], "o", "_id") != 7 {
		t.Fatalf("ts > b = %v", after)
	}
	// A sort on another field is a blocking sort.
	byID := entries(t, db, filter, options.Find().SetSort(bson.D{{Key: "o._id", Value: -1}}).SetSkip(1).SetLimit(2))
	if len(byID) != 2 || i32(byID[0], "o", "_id") != 8 || i32(byID[1], "o", "_id") != 7 {
		t.Fatalf("sort {o._id: -1} skip 1 limit 2 = %v", byID)
	}
	proj := entries(t, db, filter, options.Find().SetProjection(bson.D{{Key: "op", Value: 1}, {Key: "o._id", Value: 1}}).SetLimit(1))
	if len(proj) != 1 || str(proj[0], "op") != "i" || has(proj[0], "ts") || has(proj[0], "ns") || i32(proj[0], "o", "_id") != 0 {
		t.Fatalf("projected entry = %v", proj)
	}

	n, err := oplogColl(db).CountDocuments(ctx, filter)
	if err != nil || n != 10 {
		t.Fatalf("countDocuments = %d, %v; want 10", n, err)
	}
	res, err := testenv.RunCmd(t, db.Client().Database("local"), bson.D{{Key: "count", Value: "oplog.rs"},
		{Key: "query", Value: filter}, {Key: "skip", Value: 2}, {Key: "limit", Value: 5}})
	testenv.WantOK(t, res, err)
	testenv.WantInt32(t, res, "n", 5)
	total, err := oplogColl(db).EstimatedDocumentCount(ctx)
	if err != nil || total < 11 {
		t.Fatalf("estimatedDocumentCount = %d, %v", total, err)
	}

	cur, err := oplogColl(db).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "ns", Value: "test.reads"}, {Key: "o._id", Value: bson.D{{Key: "$gte", Value: 5}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "ts", Value: -1}}}},
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: "$o._id"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0]["_id"] != int32(9) || got[4]["_id"] != int32(5) {
		t.Fatalf("aggregate = %v", got)
	}

	// listCollections: a capped collection bounded at the oplog's size.
	specs, err := db.Client().Database("local").ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "oplog.rs"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections local = %v, %v", specs, err)
	}
	if capped, _ := specs[0].Options.Lookup("capped").BooleanOK(); !capped {
		t.Fatalf("oplog.rs options = %v", specs[0].Options)
	}
	if size, _ := specs[0].Options.Lookup("size").AsInt64OK(); size != 1<<30 {
		t.Fatalf("oplog.rs size = %v, want the default 1 GiB", specs[0].Options.Lookup("size"))
	}
	stats, err := testenv.RunCmd(t, db.Client().Database("local"), bson.D{{Key: "collStats", Value: "oplog.rs"}})
	testenv.WantOK(t, stats, err)
	if capped, _ := stats.Lookup("capped").BooleanOK(); !capped {
		t.Fatalf("collStats capped = %v", stats.Lookup("capped"))
	}
	if ms, _ := stats.Lookup("maxSize").AsInt64OK(); ms != 1<<30 {
		t.Fatalf("collStats maxSize = %v", stats.Lookup("maxSize"))
	}
	if c, _ := stats.Lookup("count").AsInt64OK(); c < 11 {
		t.Fatalf("collStats count = %v", stats.Lookup("count"))
	}
	cs, err := oplogColl(db).Aggregate(ctx, mongo.Pipeline{{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}}})
	if err != nil || !cs.Next(ctx) {
		t.Fatalf("$collStats: %v", err)
	}
	if ms, _ := cs.Current.Lookup("storageStats", "maxSize").AsInt64OK(); ms != 1<<30 {
		t.Fatalf("$collStats storageStats = %v", cs.Current.Lookup("storageStats"))
	}
	cs.Close(ctx)
	ix, err := oplogColl(db).Indexes().ListSpecifications(ctx)
	if err != nil || len(ix) != 0 {
		t.Fatalf("oplog indexes = %v, %v; want none", ix, err)
	}
	_, err = oplogColl(db).Distinct(ctx, "op", bson.D{}).Raw()
	testenv.WantCode(t, "distinct on the oplog", err, 238)
}

// TestOplogLongReads: reads that pass over many entries that do not
// match, both ways, find the ones that do.
func TestOplogLongReads(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if _, err := db.Collection("rare").InsertOne(ctx, bson.D{{Key: "_id", Value: "first"}}); err != nil {
		t.Fatal(err)
	}
	testenv.InsertBatches(t, db.Collection("many"), 3000, func(i int) any { return bson.D{{Key: "_id", Value: i}} })
	if _, err := db.Collection("rare").InsertOne(ctx, bson.D{{Key: "_id", Value: "last"}}); err != nil {
		t.Fatal(err)
	}
	rare := bson.D{{Key: "ns", Value: "test.rare"}}
	for _, dir := range []int{1, -1} {
		got := entries(t, db, rare, options.Find().SetSort(bson.D{{Key: "$natural", Value: dir}}))
		if len(got) != 2 {
			t.Fatalf("$natural %d: %d entries of test.rare, want 2", dir, len(got))
		}
		first := "first"
		if dir < 0 {
			first = "last"
		}
		if str(got[0], "o", "_id") != first {
			t.Fatalf("$natural %d: first entry %v", dir, got[0])
		}
	}
	if n, err := oplogColl(db).CountDocuments(ctx, bson.D{{Key: "ns", Value: "test.many"}}); err != nil || n != 3000 {
		t.Fatalf("countDocuments = %d, %v", n, err)
	}
	all := entries(t, db, bson.D{{Key: "ns", Value: "test.many"}}, options.Find().SetSort(bson.D{{Key: "$natural", Value: -1}}))
	if len(all) != 3000 || i32(all[0], "o", "_id") != 2999 || i32(all[2999], "o", "_id") != 0 {
		t.Fatalf("reverse read of 3000 entries: %d", len(all))
	}
}

// TestOplogTailable: a tailable awaitData cursor on local.oplog.rs
// returns new entries as they commit, in order, and waits for them.
func TestOplogTailable(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("tail")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	cur, err := oplogColl(db).Find(ctx, bson.D{{Key: "ns", Value: "test.tail"}},
		options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	const n = 20
	go func() {
		for i := 1; i <= n; i++ {
			time.Sleep(10 * time.Millisecond)
			if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for want := 0; want <= n; want++ {
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok := cur.Next(nctx)
		cancel()
		if !ok {
			t.Fatalf("tailable cursor stopped before entry %d: %v", want, cur.Err())
		}
		if got := i32(cur.Current, "o", "_id"); got != int32(want) {
			t.Fatalf("entry %d has _id %d", want, got)
		}
	}
	// Nothing more: the getMore waits for maxAwaitTimeMS (500 ms; at
	// least half of it, for the timer's slack) and the cursor stays open.
	start := time.Now()
	if cur.TryNext(ctx) {
		t.Fatalf("unexpected entry %v", cur.Current)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond || cur.ID() == 0 {
		t.Fatalf("idle getMore took %v, cursor %d", waited, cur.ID())
	}

	// Only $natural: 1 tails.
	_, err = oplogColl(db).Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable).SetSort(bson.D{{Key: "$natural", Value: -1}}))
	testenv.WantCode(t, "tailable with $natural: -1", err, 2)
}

// TestOplogWritesRefused: local.oplog.rs cannot be written or dropped,
// nor read inside a transaction.
func TestOplogWritesRefused(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	_, err := oplogColl(db).InsertOne(ctx, bson.D{{Key: "op", Value: "n"}})
	testenv.WantCode(t, "insert into the oplog", err, 73)
	_, err = oplogColl(db).DeleteMany(ctx, bson.D{})
	testenv.WantCode(t, "delete from the oplog", err, 73)
	_, err = oplogColl(db).UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
	testenv.WantCode(t, "update of the oplog", err, 73)
	err = oplogColl(db).Drop(ctx)
	testenv.WantCode(t, "drop of the oplog", err, 20)
	if n, err := oplogColl(db).CountDocuments(ctx, bson.D{{Key: "op", Value: "n"}}); err != nil || n != 1 {
		t.Fatalf("no-op entries = %d, %v; want only the initiating one", n, err)
	}
	// Nor read in a transaction, as mongod refuses the local database there.
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		return oplogColl(db).Find(sc, bson.D{})
	})
	testenv.WantCode(t, "find on the oplog in a transaction", err, 263)
}

// TestOplogResize: replSetResizeOplog takes a size in MB as a double of
// at least 990, collStats shows the new bound, and minRetentionHours is
// refused.
func TestOplogResize(t *testing.T) {
	_, db := testenv.Open(t)
	admin := db.Client().Database("admin")
	res, err := testenv.RunCmd(t, admin, bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "size", Value: 990.0}})
	testenv.WantOK(t, res, err)
	stats, err := testenv.RunCmd(t, db.Client().Database("local"), bson.D{{Key: "collStats", Value: "oplog.rs"}})
	testenv.WantOK(t, stats, err)
	if ms, _ := stats.Lookup("maxSize").AsInt64OK(); ms != 990<<20 {
		t.Fatalf("maxSize after resize = %v", stats.Lookup("maxSize"))
	}
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "size", Value: 100.0}})
	testenv.WantCode(t, "size below 990", err, 51024)
	// size is a safeDouble in 7.0's IDL: any number.
	res, err = testenv.RunCmd(t, admin, bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "size", Value: int32(2000)}})
	testenv.WantOK(t, res, err)
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "size", Value: "2000"}})
	testenv.WantCode(t, "size not a number", err, 14)
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "minRetentionHours", Value: 2.0}})
	testenv.WantCode(t, "minRetentionHours", err, 238)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "size", Value: 1000.0}})
	testenv.WantCode(t, "resize outside admin", err, 13)
}

// TestOplogBound: an oplog bounded at 1 MiB (WithOplogSizeMB) stays
// within it through 4 MiB of inserts, oldest entries trimmed first, and
// a tailable cursor that falls behind the trimming gets
// CappedPositionLost.
func TestOplogBound(t *testing.T) {
	_, db := testenv.Open(t, lode.WithOplogSizeMB(1))
	ctx := testenv.Ctx(t)
	cur, err := oplogColl(db).Find(ctx, bson.D{}, options.Find().SetCursorType(options.Tailable).SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) {
		t.Fatalf("tailable cursor: %v", cur.Err())
	}
	pad := strings.Repeat("x", 1000)
	coll := db.Collection("bound")
	for i := 0; i < 4096; i += 256 {
		docs := make([]any, 256)
		for j := range docs {
			docs[j] = bson.D{{Key: "_id", Value: i + j}, {Key: "pad", Value: pad}}
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	stats, err := testenv.RunCmd(t, db.Client().Database("local"), bson.D{{Key: "collStats", Value: "oplog.rs"}})
	testenv.WantOK(t, stats, err)
	size, _ := stats.Lookup("size").AsInt64OK()
	if size > 1<<20 || size < 1<<19 {
		t.Fatalf("oplog size %d for a 1 MiB bound", size)
	}
	var oldest bson.Raw
	if err := oplogColl(db).FindOne(ctx, bson.D{}).Decode(&oldest); err != nil {
		t.Fatal(err)
	}
	if id := i32(oldest, "o", "_id"); str(oldest, "op") != "i" || id < 2000 {
		t.Fatalf("oldest entry after trimming = %v", oldest)
	}
	for cur.Next(ctx) {
	}
	if code, _ := testenv.ErrCode(t, cur.Err()); code != 136 {
		t.Fatalf("tailable cursor behind the trimming: %v, want CappedPositionLost", cur.Err())
	}
}

// TestOplogOff: with WithOplogSizeMB(0) there is no oplog: local lists
// no oplog.rs and replSetResizeOplog has nothing to resize. A negative
// size is refused.
func TestOplogOff(t *testing.T) {
	_, db := testenv.Open(t, lode.WithOplogSizeMB(0))
	ctx := testenv.Ctx(t)
	if _, err := db.Collection("x").InsertOne(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	names, err := db.Client().Database("local").ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 0 {
		t.Fatalf("local collections = %v, %v", names, err)
	}
	if got := entries(t, db, bson.D{}); len(got) != 0 {
		t.Fatalf("oplog entries with the oplog off: %v", got)
	}
	_, err = testenv.RunCmd(t, db.Client().Database("admin"), bson.D{{Key: "replSetResizeOplog", Value: 1}, {Key: "size", Value: 1000.0}})
	testenv.WantCode(t, "resize without an oplog", err, 26)
	if bad, err := lode.Open(t.TempDir(), lode.WithOplogSizeMB(-1)); err == nil {
		bad.Close()
		t.Fatal("lode.Open accepted WithOplogSizeMB(-1)")
	}
}

// TestReplSetState: replSetGetStatus, replSetGetConfig and serverStatus's
// repl section describe the one-member set from real state: the member's
// optime is the newest oplog entry.
func TestReplSetState(t *testing.T) {
	ldb, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if _, err := db.Collection("state").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	var newest bson.Raw
	if err := oplogColl(db).FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "$natural", Value: -1}})).Decode(&newest); err != nil {
		t.Fatal(err)
	}
	admin := db.Client().Database("admin")
	st, err := testenv.RunCmd(t, admin, bson.D{{Key: "replSetGetStatus", Value: 1}})
	testenv.WantOK(t, st, err)
	if str(st, "set") != "lode" || i32(st, "myState") != 1 {
		t.Fatalf("replSetGetStatus = %v", st)
	}
	if term, _ := st.Lookup("term").Int64OK(); term != 1 {
		t.Fatalf("term = %v", st.Lookup("term"))
	}
	members, _ := st.Lookup("members").Array().Values()
	if len(members) != 1 {
		t.Fatalf("members = %v", members)
	}
	m := members[0].Document()
	if str(m, "stateStr") != "PRIMARY" || str(m, "name") != testenv.HostPort(ldb) || i32(m, "state") != 1 {
		t.Fatalf("member = %v", m)
	}
	if h, _ := m.Lookup("health").AsFloat64OK(); h != 1 {
		t.Fatalf("member health = %v", m.Lookup("health"))
	}
	if self, _ := m.Lookup("self").BooleanOK(); !self {
		t.Fatalf("member is not self: %v", m)
	}
	mts, mi, _ := m.Lookup("optime", "ts").TimestampOK()
	if want := ts(t, newest); mts != want.T || mi != want.I {
		t.Fatalf("member optime %v, newest entry %v", m.Lookup("optime"), want)
	}
	if od, _ := m.Lookup("optimeDate").DateTimeOK(); od != int64(mts)*1000 {
		t.Fatalf("optimeDate %v for optime %d", m.Lookup("optimeDate"), mts)
	}
	for _, k := range []string{"lastCommittedOpTime", "appliedOpTime", "durableOpTime", "readConcernMajorityOpTime"} {
		if s, i, _ := st.Lookup("optimes", k, "ts").TimestampOK(); s != mts || i != mi {
			t.Fatalf("optimes.%s = %v", k, st.Lookup("optimes", k))
		}
	}

	cfg, err := testenv.RunCmd(t, admin, bson.D{{Key: "replSetGetConfig", Value: 1}})
	testenv.WantOK(t, cfg, err)
	c := cfg.Lookup("config").Document()
	if str(c, "_id") != "lode" || i32(c, "version") != 1 || i32(c, "term") != 1 {
		t.Fatalf("config = %v", c)
	}
	cm, _ := c.Lookup("members").Array().Values()
	if len(cm) != 1 || str(cm[0].Document(), "host") != testenv.HostPort(ldb) || i32(cm[0].Document(), "votes") != 1 {
		t.Fatalf("config members = %v", cm)
	}
	if p, _ := c.Lookup("protocolVersion").Int64OK(); p != 1 {
		t.Fatalf("protocolVersion = %v", c.Lookup("protocolVersion"))
	}
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "replSetGetStatus", Value: 1}})
	testenv.WantCode(t, "replSetGetStatus outside admin", err, 13)

	ss := testenv.ServerStatus(t, db.Client())
	if str(ss, "repl", "setName") != "lode" || str(ss, "repl", "me") != testenv.HostPort(ldb) {
		t.Fatalf("serverStatus.repl = %v", ss.Lookup("repl"))
	}
	if w, _ := ss.Lookup("repl", "isWritablePrimary").BooleanOK(); !w {
		t.Fatalf("serverStatus.repl = %v", ss.Lookup("repl"))
	}
	if mb, _ := ss.Lookup("lode", "oplog", "maxBytes").AsInt64OK(); mb != 1<<30 {
		t.Fatalf("serverStatus.lode.oplog = %v", ss.Lookup("lode", "oplog"))
	}
}
