package agg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// explainPipeline explains pipeline on testDB.coll at verbosity v.
func explainPipeline(t *testing.T, cat agg.Catalog, coll, pipeline, v string, pc *agg.ParseContext) bsoncore.Document {
	t.Helper()
	if pc == nil {
		pc = &agg.ParseContext{}
	}
	pc.DB, pc.Coll = testDB, coll
	p, err := agg.Parse(parseDocs(t, pipeline), pc)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.ExplainWith(context.Background(), cat, agg.ExplainOptions{Verbosity: v})
	if err != nil {
		t.Fatalf("explain %s: %v", pipeline, err)
	}
	return d
}

// explainStages returns the stages array of an aggregate explain.
func explainStages(t *testing.T, d bsoncore.Document) []bsoncore.Document {
	t.Helper()
	v, err := d.LookupErr("stages")
	if err != nil {
		t.Fatalf("no stages: %s", d)
	}
	vals, _ := v.Array().Values()
	out := make([]bsoncore.Document, len(vals))
	for i, x := range vals {
		out[i] = x.Document()
	}
	return out
}

// planStages lists the stage names of a plan tree (single inputs only).
func planStages(plan bsoncore.Document) string {
	var names []string
	for plan != nil {
		names = append(names, plan.Lookup("stage").StringValue())
		in, err := plan.LookupErr("inputStage")
		if err != nil {
			break
		}
		plan = in.Document()
	}
	return strings.Join(names, ">")
}

func lookupInt(t *testing.T, d bsoncore.Document, path ...string) int64 {
	t.Helper()
	v, err := d.LookupErr(path...)
	if err != nil {
		t.Fatalf("no %v in %s", path, d)
	}
	n, ok := v.AsInt64OK()
	if !ok {
		t.Fatalf("%v is %s in %s", path, v.Type, d)
	}
	return n
}

// keys lists the field names of d.
func keys(d bsoncore.Document) string {
	els, _ := d.Elements()
	var ks []string
	for _, e := range els {
		ks = append(ks, e.Key())
	}
	return strings.Join(ks, ",")
}

func TestExplainPushdown(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "c", `[{"_id":1,"a":1},{"_id":2,"a":2}]`)
	d := explainPipeline(t, cat, "c", `[{"$match":{"a":1}},{"$sort":{"a":1}},{"$limit":5},{"$project":{"a":1}},{"$addFields":{"b":1}}]`, "", nil)
	st := explainStages(t, d)
	if len(st) != 2 || keys(st[0]) != "$cursor" || keys(st[0].Lookup("$cursor").Document()) != "queryPlanner" {
		t.Fatalf("explain %s", d)
	}
	if got := planStages(st[0].Lookup("$cursor", "queryPlanner", "winningPlan").Document()); got != "PROJECTION_SIMPLE>SORT>COLLSCAN" {
		t.Errorf("winning plan %s", got)
	}
	if lookupInt(t, st[0], "$cursor", "queryPlanner", "winningPlan", "inputStage", "limitAmount") != 5 {
		t.Errorf("limit not pushed: %s", st[0])
	}
	sameDocs(t, st[1:], `[{"$addFields":{"b":1}}]`, false)

	// A $group a count answers explains the count's plan.
	d = explainPipeline(t, cat, "c", `[{"$match":{"a":{"$gt":0}}},{"$group":{"_id":1,"n":{"$sum":1}}}]`, "", nil)
	st = explainStages(t, d)
	if got := planStages(st[0].Lookup("$cursor", "queryPlanner", "winningPlan").Document()); got != "COUNT>COLLSCAN" {
		t.Errorf("winning plan %s", got)
	}
	sameDocs(t, st[1:], `[{"$group":{"_id":1,"n":{"$sum":1}}}]`, false)
}

// At executionStats, each stage reports what it returned; the $cursor
// stage carries the query's executionStats.
func TestExplainExecutionStats(t *testing.T) {
	cat := openCat(t)
	var docs []string
	for i := 0; i < 50; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"a":%d,"k":"k%d","pad":"%s"}`, i, i, i%7, strings.Repeat("x", 100)))
	}
	insert(t, cat, "c", "["+strings.Join(docs, ",")+"]")
	pipeline := `[{"$match":{"a":{"$gte":10}}},{"$group":{"_id":"$k","n":{"$sum":1}}},{"$sort":{"_id":1}},{"$limit":3}]`
	for _, v := range []string{agg.VerbosityExecutionStats, agg.VerbosityAllPlansExecution} {
		d := explainPipeline(t, cat, "c", pipeline, v, nil)
		st := explainStages(t, d)
		if len(st) != 3 {
			t.Fatalf("%s: %s", v, d)
		}
		cur := st[0]
		if keys(cur) != "$cursor,nReturned,executionTimeMillisEstimate" {
			t.Errorf("$cursor entry %s", cur)
		}
		if lookupInt(t, cur, "nReturned") != 40 || lookupInt(t, cur, "$cursor", "executionStats", "nReturned") != 40 ||
			lookupInt(t, cur, "$cursor", "executionStats", "totalDocsExamined") != 50 {
			t.Errorf("$cursor figures %s", cur)
		}
		if !cur.Lookup("$cursor", "executionStats", "executionSuccess").Boolean() {
			t.Errorf("executionSuccess %s", cur)
		}
		_, all := cur.Lookup("$cursor", "executionStats").Document().LookupErr("allPlansExecution")
		if (v == agg.VerbosityAllPlansExecution) != (all == nil) {
			t.Errorf("%s: allPlansExecution present=%v", v, all == nil)
		}
		g := st[1]
		if keys(g) != "$group,totalOutputDataSizeBytes,usedDisk,spills,spilledDataStorageSize,numBytesSpilledEstimate,spilledRecords,nReturned,executionTimeMillisEstimate" {
			t.Errorf("$group entry %s", g)
		}
		if lookupInt(t, g, "nReturned") != 7 || g.Lookup("usedDisk").Boolean() || lookupInt(t, g, "spills") != 0 || lookupInt(t, g, "totalOutputDataSizeBytes") <= 0 {
			t.Errorf("$group figures %s", g)
		}
		s := st[2]
		if keys(s) != "$sort,totalDataSizeSortedBytesEstimate,usedDisk,spills,spilledDataStorageSize,nReturned,executionTimeMillisEstimate" {
			t.Errorf("$sort entry %s", s)
		}
		// $sort+$limit is one top-k stage; it sorted what $group returned.
		if lookupInt(t, s, "nReturned") != 3 || lookupInt(t, s, "$sort", "limit") != 3 ||
			lookupInt(t, s, "totalDataSizeSortedBytesEstimate") != lookupInt(t, g, "totalOutputDataSizeBytes") {
			t.Errorf("$sort figures %s", s)
		}
		// Times include those of the stages before.
		if lookupInt(t, s, "executionTimeMillisEstimate") < lookupInt(t, cur, "executionTimeMillisEstimate") {
			t.Errorf("times %s", d)
		}
	}
	// queryPlanner runs nothing.
	d := explainPipeline(t, cat, "c", pipeline, agg.VerbosityQueryPlanner, nil)
	for _, s := range explainStages(t, d) {
		if _, err := s.LookupErr("nReturned"); err == nil {
			t.Errorf("queryPlanner has figures: %s", s)
		}
	}
	if _, err := d.LookupErr("stages", "0", "$cursor", "executionStats"); err == nil {
		t.Errorf("queryPlanner has executionStats: %s", d)
	}
}

// A spilling $group reports its spills; the results are unchanged.
func TestExplainSpills(t *testing.T) {
	cat := openCat(t)
	var docs []string
	for i := 0; i < 400; i++ {
		docs = append(docs, fmt.Sprintf(`{"_id":%d,"k":%d,"pad":"%s"}`, i, i%200, strings.Repeat("y", 200)))
	}
	insert(t, cat, "c", "["+strings.Join(docs, ",")+"]")
	pc := &agg.ParseContext{AllowDiskUse: true, MemoryLimit: 16 << 10, TempDir: t.TempDir()}
	d := explainPipeline(t, cat, "c", `[{"$group":{"_id":"$k","p":{"$push":"$pad"}}},{"$sort":{"p":1}}]`, agg.VerbosityExecutionStats, pc)
	st := explainStages(t, d)
	g, s := st[1], st[2]
	if lookupInt(t, g, "nReturned") != 200 || !g.Lookup("usedDisk").Boolean() || lookupInt(t, g, "spills") == 0 ||
		lookupInt(t, g, "spilledRecords") == 0 || lookupInt(t, g, "spilledDataStorageSize") == 0 {
		t.Errorf("$group %s", g)
	}
	if lookupInt(t, s, "nReturned") != 200 || !s.Lookup("usedDisk").Boolean() || lookupInt(t, s, "spills") == 0 {
		t.Errorf("$sort %s", s)
	}
}

// A pipeline the query layer answers whole explains as find.
func TestExplainOptimizedPipeline(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "c", `[{"_id":1,"a":1},{"_id":2,"a":2},{"_id":3,"a":3}]`)
	for _, v := range []string{agg.VerbosityQueryPlanner, agg.VerbosityExecutionStats} {
		d := explainPipeline(t, cat, "c", `[{"$match":{"a":{"$gt":1}}},{"$project":{"a":1}}]`, v, nil)
		if _, err := d.LookupErr("stages"); err == nil {
			t.Fatalf("%s: %s", v, d)
		}
		if !d.Lookup("queryPlanner", "optimizedPipeline").Boolean() {
			t.Errorf("%s: %s", v, d)
		}
		_, err := d.LookupErr("executionStats")
		if (v == agg.VerbosityQueryPlanner) != (err != nil) {
			t.Errorf("%s: executionStats present=%v", v, err == nil)
		}
		if v != agg.VerbosityQueryPlanner && lookupInt(t, d, "executionStats", "nReturned") != 2 {
			t.Errorf("%s: %s", v, d)
		}
	}
}

// Count-answered $group, $lookup figures, $out writing nothing.
func TestExplainStageFigures(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "c", `[{"_id":1,"a":1,"k":"x"},{"_id":2,"a":2,"k":"y"},{"_id":3,"a":3,"k":"x"}]`)
	insert(t, cat, "f", `[{"_id":1,"k":"x"},{"_id":2,"k":"y"},{"_id":3,"k":"z"}]`)
	ctx := context.Background()

	d := explainPipeline(t, cat, "c", `[{"$match":{"a":{"$gt":1}}},{"$group":{"_id":null,"n":{"$sum":1}}}]`, agg.VerbosityExecutionStats, nil)
	st := explainStages(t, d)
	if lookupInt(t, st[0], "nReturned") != 2 || lookupInt(t, st[0], "$cursor", "executionStats", "executionStages", "nCounted") != 2 ||
		lookupInt(t, st[1], "nReturned") != 1 {
		t.Errorf("count: %s", d)
	}

	d = explainPipeline(t, cat, "c", `[{"$lookup":{"from":"f","localField":"k","foreignField":"k","as":"j"}}]`, agg.VerbosityExecutionStats, nil)
	l := explainStages(t, d)[1]
	if keys(l) != "$lookup,totalDocsExamined,totalKeysExamined,collectionScans,indexesUsed,nReturned,executionTimeMillisEstimate" ||
		lookupInt(t, l, "totalDocsExamined") != 9 || lookupInt(t, l, "collectionScans") != 3 || lookupInt(t, l, "nReturned") != 3 {
		t.Errorf("$lookup: %s", l)
	}
	if _, err := cat.E.CreateIndex(testDB, "f", engine.IndexSpec{Name: "k_1", Key: bsoncore.NewDocumentBuilder().AppendInt32("k", 1).Build()}); err != nil {
		t.Fatal(err)
	}
	d = explainPipeline(t, cat, "c", `[{"$lookup":{"from":"f","localField":"k","foreignField":"k","as":"j"}}]`, agg.VerbosityExecutionStats, nil)
	l = explainStages(t, d)[1]
	ix, _ := l.Lookup("indexesUsed").Array().Values()
	if lookupInt(t, l, "totalDocsExamined") != 3 || lookupInt(t, l, "totalKeysExamined") == 0 || lookupInt(t, l, "collectionScans") != 0 ||
		len(ix) != 1 || ix[0].StringValue() != "k_1" {
		t.Errorf("indexed $lookup: %s", l)
	}

	for _, stage := range []string{`{"$out":"o"}`, `{"$merge":{"into":"o"}}`} {
		d = explainPipeline(t, cat, "c", `[{"$match":{"a":{"$gt":1}}},`+stage+`]`, agg.VerbosityExecutionStats, nil)
		st = explainStages(t, d)
		if lookupInt(t, st[0], "nReturned") != 2 || lookupInt(t, st[1], "nReturned") != 0 {
			t.Errorf("%s: %s", stage, d)
		}
		if out, _ := runPipeline(t, cat, "o", `[]`, runOpts{}); len(out) != 0 {
			t.Errorf("%s wrote under explain: %s", stage, show(out))
		}
		ix, err := cat.Indexes(ctx, testDB, "o")
		if err == nil && len(ix) > 0 {
			t.Errorf("%s created its target under explain", stage)
		}
	}

	p, err := agg.Parse(parseDocs(t, `[]`), &agg.ParseContext{DB: testDB, Coll: "c"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.ExplainWith(ctx, cat, agg.ExplainOptions{Verbosity: "verbose"})
	wantCode(t, err, errs.FailedToParse)
}

var _ agg.QueryExplainer = (*aggengine.Catalog)(nil)
