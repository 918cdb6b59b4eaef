package advise_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/advise"
	"github.com/lodedb/lode/test/testenv"
)

// statsDoc is a hand-written $queryStats document in the contract's
// shape.
func statsDoc(t *testing.T, coll, command string, filter, sort bson.D, rep bson.D, exec, keys, docs, returned int64, plan string) bson.Raw {
	t.Helper()
	qs := bson.D{{Key: "cmdNs", Value: bson.D{{Key: "db", Value: "test"}, {Key: "coll", Value: coll}}},
		{Key: "command", Value: command}}
	fb, err := bson.Marshal(filter)
	if err != nil {
		t.Fatal(err)
	}
	qs = append(qs, bson.E{Key: "filter", Value: advise.ShapeOf(fb)})
	if sort != nil {
		qs = append(qs, bson.E{Key: "sort", Value: sort})
	}
	m := func(sum int64) bson.D {
		return bson.D{{Key: "sum", Value: sum}, {Key: "max", Value: sum}, {Key: "min", Value: 0}}
	}
	d := bson.D{
		{Key: "key", Value: bson.D{{Key: "queryShape", Value: qs}}},
		{Key: "queryShapeHash", Value: fmt.Sprintf("%s-%s-%d", coll, command, exec)},
		{Key: "representativeQuery", Value: rep},
		{Key: "metrics", Value: bson.D{
			{Key: "lastExecutionMicros", Value: int64(100)}, {Key: "execCount", Value: exec},
			{Key: "totalExecMicros", Value: m(exec * 100)}, {Key: "docsReturned", Value: m(returned)},
			{Key: "keysExamined", Value: m(keys)}, {Key: "docsExamined", Value: m(docs)},
			{Key: "lastPlanSummary", Value: plan},
			{Key: "firstSeenTimestamp", Value: time.Now()}, {Key: "latestSeenTimestamp", Value: time.Now()},
		}},
		{Key: "asOf", Value: time.Now()},
	}
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunHandWrittenStats feeds Run statistics documents written by hand
// (the $queryStats contract) over real collections and checks every
// decision of the report.
func TestRunHandWrittenStats(t *testing.T) {
	ldb, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	client := ldb.Client()
	base := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	testenv.InsertBatches(t, db.Collection("docs"), 2000, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: fmt.Sprintf("c%d", i%10)}, {Key: "ts", Value: int64(i)},
			{Key: "k", Value: i % 100}, {Key: "status", Value: []string{"new", "done"}[i%2]}, {Key: "body", Value: "lorem"}}
	})
	testenv.CreateIndex(t, db.Collection("docs"), bson.D{{Key: "status", Value: 1}})
	testenv.InsertBatches(t, db.Collection("events"), 2000, func(i int) any {
		return bson.D{{Key: "host", Value: fmt.Sprintf("h%d", i%10)}, {Key: "time", Value: base.Add(time.Duration(i) * time.Minute)}}
	})
	testenv.InsertBatches(t, db.Collection("jobs"), 500, func(i int) any {
		var start any
		if i < 100 {
			start = base
		}
		return bson.D{{Key: "startTime", Value: start}, {Key: "createdOn", Value: base.Add(time.Duration(i) * time.Second)}}
	})
	testenv.CreateIndex(t, db.Collection("events"), bson.D{{Key: "host", Value: 1}})
	testenv.CreateIndex(t, db.Collection("events"), bson.D{{Key: "host", Value: 1}, {Key: "x", Value: 1}})
	// One use each, so only {host: 1, x: 1} is unused.
	if err := db.Collection("events").FindOne(ctx, bson.D{{Key: "host", Value: "h1"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.Collection("docs").FindOne(ctx, bson.D{{Key: "status", Value: "new"}}).Err(); err != nil {
		t.Fatal(err)
	}

	inCats := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{"c1", "c2", "c3"}}}}}
	byTS := bson.D{{Key: "ts", Value: -1}}
	countF := append(append(bson.D{}, inCats...), bson.E{Key: "ts", Value: bson.D{{Key: "$gt", Value: 1500}}})
	day := bson.D{{Key: "$gte", Value: base}, {Key: "$lt", Value: base.Add(24 * time.Hour)}}
	hostDay := bson.D{{Key: "host", Value: "h3"}, {Key: "time", Value: day}}
	pipeline := bson.A{bson.D{{Key: "$match", Value: hostDay}}, bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: 1}}}}}
	fifo := bson.D{{Key: "startTime", Value: nil}}
	ne := bson.D{{Key: "k", Value: bson.D{{Key: "$ne", Value: 5}}}}
	text := bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "lorem"}}}}
	docs := []bson.Raw{
		statsDoc(t, "docs", "find", inCats, byTS, bson.D{{Key: "filter", Value: inCats}, {Key: "sort", Value: byTS}, {Key: "limit", Value: int64(10)}},
			10, 0, 20000, 100, "COLLSCAN"),
		statsDoc(t, "docs", "count", countF, nil, bson.D{{Key: "filter", Value: countF}}, 4, 0, 8000, 4, "COLLSCAN"),
		statsDoc(t, "docs", "find", bson.D{{Key: "_id", Value: 5}}, nil, bson.D{{Key: "filter", Value: bson.D{{Key: "_id", Value: 5}}}},
			7, 7, 7, 7, "IDHACK"),
		statsDoc(t, "docs", "find", ne, nil, bson.D{{Key: "filter", Value: ne}}, 1, 0, 3200, 1980, "COLLSCAN"),
		statsDoc(t, "docs", "find", bson.D{{Key: "status", Value: "new"}}, nil,
			bson.D{{Key: "filter", Value: bson.D{{Key: "status", Value: "new"}}}}, 2, 2000, 2000, 20, "IXSCAN { status: 1 }"),
		statsDoc(t, "docs", "find", text, nil, bson.D{{Key: "filter", Value: text}}, 1, 10, 10, 2, "TEXT_MATCH"),
		statsDoc(t, "events", "aggregate", hostDay, nil, bson.D{{Key: "pipeline", Value: pipeline}}, 3, 600, 600, 12, "IXSCAN { host: 1 }"),
		statsDoc(t, "jobs", "findAndModify", fifo, bson.D{{Key: "createdOn", Value: 1}},
			bson.D{{Key: "filter", Value: fifo}, {Key: "sort", Value: bson.D{{Key: "createdOn", Value: 1}}}}, 50, 0, 25000, 0, "COLLSCAN"),
		statsDoc(t, "gone", "find", inCats, nil, bson.D{{Key: "filter", Value: inCats}}, 1, 0, 100, 1, "COLLSCAN"),
		statsDoc(t, "system.profile", "find", inCats, nil, bson.D{{Key: "filter", Value: inCats}}, 1, 0, 100, 1, "COLLSCAN"),
	}
	src := func(context.Context) ([]bson.Raw, error) { return docs, nil }
	rep, err := advise.Run(ctx, client, src, advise.Options{DB: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var props []string
	for _, p := range rep.Proposals {
		props = append(props, p.NS()+" "+p.Key.String())
	}
	want := []string{"test.docs { cat: 1, ts: -1 }", "test.events { host: 1, time: 1 }", "test.jobs { startTime: 1, createdOn: 1 }"}
	if strings.Join(props, "|") != strings.Join(want, "|") {
		t.Errorf("proposals %q, want %q", props, want)
	}
	notes := map[string]string{}
	rows := map[string]advise.Row{}
	for _, r := range rep.Rows {
		notes[r.NS+" "+r.Shape] = r.Note
		rows[r.NS+" "+r.Shape] = r
	}
	if len(rep.Rows) != len(docs)-1 {
		t.Errorf("%d rows, want %d (system collections left out)", len(rep.Rows), len(docs)-1)
	}
	for shape, want := range map[string]string{
		`test.docs find {"_id":{"$eq":"?number"}}`:         "well served",
		`test.docs find {"k":{"$ne":"?number"}}`:           "the planner would not use { k: 1 }",
		`test.docs find {"status":{"$eq":"?string"}}`:      "existing index status_1 serves it",
		`test.docs find {"$text":{"$search":"?string"}}`:   "$text search",
		`test.gone find {"cat":{"$in":"?array<?string>"}}`: "the collection no longer exists",
	} {
		if !strings.Contains(notes[shape], want) {
			t.Errorf("%s: note %q, want %q (rows: %v)", shape, notes[shape], want, notes)
		}
	}
	// The count is served by the sort's index, with its own prediction:
	// about 3 keys (one per category branch) for 147 matches... covered.
	cnt := rows[`test.docs count {"cat":{"$in":"?array<?string>"},"ts":{"$gt":"?number"}}`]
	if cnt.Index.String() != "{ cat: 1, ts: -1 }" || cnt.PredictedDocsPerResult != 0 || cnt.PredictedKeysPerResult <= 0 {
		t.Errorf("count row %+v: want {cat: 1, ts: -1}, covered (no documents), some keys", cnt)
	}
	find := rows[`test.docs find {"cat":{"$in":"?array<?string>"}} sort {"ts":-1} limit`]
	if find.KeysPerResult != 0 || find.DocsPerResult != 200 || find.PredictedKeysPerResult < 1 || find.PredictedKeysPerResult > 1.4 ||
		find.PredictedDocsPerResult != 1 || find.PredictedPlan != "IXSCAN { cat: 1, ts: -1 }" || find.IndexBytes <= 0 {
		t.Errorf("recent row %+v", find)
	}
	job := rows[`test.jobs findAndModify {"startTime":{"$eq":"?null"}} sort {"createdOn":1}`]
	if job.DocsPerResult != 500 || job.PredictedKeysPerResult != 1 || job.PredictedDocsPerResult != 1 {
		t.Errorf("queue row %+v: want 500 docs per claim today (no result counted: one per execution), 1 and 1 predicted", job)
	}
	agg := rows[`test.events aggregate {"host":{"$eq":"?string"},"time":{"$gte":"?date","$lt":"?date"}} sort {"time":1}`]
	if agg.Index.String() != "{ host: 1, time: 1 }" || agg.PredictedKeysPerResult != 1 {
		t.Errorf("aggregate row %+v", agg)
	}
	if len(rep.Unused) != 1 || rep.Unused[0].Name != "host_1_x_1" {
		t.Errorf("unused %+v, want host_1_x_1 only", rep.Unused)
	}
	if len(rep.Prefix) != 1 || rep.Prefix[0].Name != "host_1" || rep.Prefix[0].PrefixOf != "host_1_x_1" {
		t.Errorf("prefix %+v, want host_1 of host_1_x_1", rep.Prefix)
	}
	// Filters apply to the index sections too.
	only, err := advise.Run(ctx, client, src, advise.Options{DB: "test", Coll: "jobs"})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Rows) != 1 || len(only.Unused)+len(only.Prefix) != 0 || len(only.Proposals) != 1 {
		t.Errorf("--coll jobs: %d rows, %d unused, %d prefix, %d proposals", len(only.Rows), len(only.Unused), len(only.Prefix), len(only.Proposals))
	}
	built, err := advise.Apply(ctx, client, rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(built, ",") != "cat_1_ts_-1,host_1_time_1,startTime_1_createdOn_1" {
		t.Errorf("built %v", built)
	}
	var sb strings.Builder
	if err := rep.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"PROPOSED INDEX", "{ host: 1, time: 1 }", "unused indexes (1):", "prefix indexes (1):", "host_1 { host: 1 } is a prefix of host_1_x_1"} {
		if !strings.Contains(sb.String(), w) {
			t.Errorf("text report lacks %q:\n%s", w, sb.String())
		}
	}
}

// TestQueryStatsSourceMissing: a server without the stage is reported as
// ErrNoQueryStats (until the statistics branch lands), or read.
func TestQueryStatsSourceMissing(t *testing.T) {
	ldb, _ := testenv.Open(t)
	_, err := advise.QueryStatsSource(ldb.Client())(testenv.Ctx(t))
	if err != nil && !strings.Contains(err.Error(), "$queryStats") {
		t.Errorf("QueryStatsSource: %v", err)
	}
	var _ mongo.CommandError
}

// TestRecorderPipelines: the Recorder tells pipelines with the same
// $match apart by their stages and names each by them, as $queryStats'
// key does.
func TestRecorderPipelines(t *testing.T) {
	ldb, _ := testenv.Open(t)
	ctx := testenv.Ctx(t)
	rec := advise.NewRecorder()
	client, err := mongo.Connect(options.Client().ApplyURI(ldb.URI()).SetMonitor(rec.Monitor()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	c := client.Database("test").Collection("p")
	testenv.InsertBatches(t, c, 20, func(i int) any { return bson.D{{Key: "a", Value: i % 4}, {Key: "b", Value: i}} })
	for _, p := range []mongo.Pipeline{
		{{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}}, {{Key: "$group", Value: bson.D{{Key: "_id", Value: "$b"}}}}},
		{{{Key: "$match", Value: bson.D{{Key: "a", Value: 2}}}}, {{Key: "$project", Value: bson.D{{Key: "b", Value: 1}}}}},
	} {
		cur, err := c.Aggregate(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		cur.Close(ctx)
	}
	docs, err := rec.Source(ldb.Client(), 0)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range docs {
		s, err := advise.ParseShape(d)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, advise.CompactShape(s))
	}
	want := []string{
		`aggregate [{"$match":{"a":{"$eq":"?number"}}},{"$group":{"_id":"$b"}}]`,
		`aggregate [{"$match":{"a":{"$eq":"?number"}}},{"$project":{"b":true}}]`,
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("recorded shapes:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}
