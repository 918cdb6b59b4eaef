package engine

import (
	"context"
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// whatIfFixture loads n documents {_id, cat: c<i%10>, ts: i, tags: [...]}.
func whatIfFixture(t *testing.T, n int) *Engine {
	e := openTest(t, "")
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: fmt.Sprintf("c%d", i%10)}, {Key: "ts", Value: int64(i)},
			{Key: "tags", Value: bson.A{fmt.Sprintf("t%d", i%7), fmt.Sprintf("u%d", i%3)}}}
	}
	insert(t, e, "db", "c", docs...)
	return e
}

// measured explains a find (or count) with executionStats and returns
// its keys and documents examined and the plan summary's index, after the
// index is really built.
func measured(t *testing.T, e *Engine, kind ExplainKind, fs FindSpec) (keys, docs int64) {
	t.Helper()
	out, err := e.Explain(context.Background(), "db", "c", ExplainSpec{Kind: kind, Find: fs, Verbosity: VerbosityExecutionStats})
	if err != nil {
		t.Fatal(err)
	}
	es := out.Lookup("executionStats").Document()
	return es.Lookup("totalKeysExamined").AsInt64(), es.Lookup("totalDocsExamined").AsInt64()
}

// TestWhatIfMatchesTheBuiltIndex: for several query forms the estimate
// with a hypothetical index equals what the plan examines once the index
// is built (the sample is the whole collection), and the hypothetical
// index is never created.
func TestWhatIfMatchesTheBuiltIndex(t *testing.T) {
	in3 := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{"c1", "c2", "c3"}}}}}
	for _, c := range []struct {
		name   string
		key    bson.D
		filter bson.D
		sort   bson.D
		limit  int64
		count  bool
		check  func(t *testing.T, p WhatIfPlan)
	}{
		{"sort merge with limit", bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}, in3, bson.D{{Key: "ts", Value: -1}}, 10, false,
			func(t *testing.T, p WhatIfPlan) {
				if p.BlockingSort || p.Returned != 10 {
					t.Errorf("plan %+v: want an index-provided sort returning 10", p)
				}
			}},
		{"blocking sort", bson.D{{Key: "cat", Value: 1}}, in3, bson.D{{Key: "ts", Value: -1}}, 10, false,
			func(t *testing.T, p WhatIfPlan) {
				if !p.BlockingSort || p.KeysExamined != 300 {
					t.Errorf("plan %+v: want a blocking sort over 300 keys", p)
				}
			}},
		{"range", bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: 1}},
			bson.D{{Key: "cat", Value: "c4"}, {Key: "ts", Value: bson.D{{Key: "$gte", Value: 100}, {Key: "$lt", Value: 400}}}}, nil, 0, false, nil},
		{"covered count", bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: 1}},
			bson.D{{Key: "cat", Value: "c4"}, {Key: "ts", Value: bson.D{{Key: "$gte", Value: 100}}}}, nil, 0, true,
			func(t *testing.T, p WhatIfPlan) {
				if p.DocsExamined != 0 || p.KeysExamined != 90 {
					t.Errorf("plan %+v: want 90 keys and no documents", p)
				}
			}},
		{"multikey", bson.D{{Key: "tags", Value: 1}}, bson.D{{Key: "tags", Value: bson.D{{Key: "$in", Value: bson.A{"t1", "u1"}}}}}, nil, 0, false, nil},
		{"residual filter", bson.D{{Key: "cat", Value: 1}}, bson.D{{Key: "cat", Value: "c2"}, {Key: "tags", Value: "t3"}}, nil, 0, false,
			func(t *testing.T, p WhatIfPlan) {
				if p.KeysExamined != 100 || p.Returned >= 100 {
					t.Errorf("plan %+v: want 100 keys and fewer results", p)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := whatIfFixture(t, 1000)
			q := WhatIfQuery{Filter: D(t, c.filter), Limit: c.limit, Count: c.count, Find: !c.count}
			if c.sort != nil {
				q.Sort = D(t, c.sort)
			}
			res, err := e.WhatIf(context.Background(), "db", "c", q, []IndexSpec{{Key: D(t, c.key)}})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Chosen
			if !p.Hypothetical || p.Index != DefaultIndexName(D(t, c.key)) {
				t.Fatalf("chosen %+v, want the hypothetical index", p)
			}
			if res.Docs != 1000 || res.Sampled != 1000 || res.IndexBytes[p.Index] <= 0 {
				t.Errorf("docs %d sampled %d size %v", res.Docs, res.Sampled, res.IndexBytes)
			}
			if c.check != nil {
				c.check(t, p)
			}
			ixs, _ := e.ListIndexes("db", "c")
			if len(ixs) != 1 {
				t.Fatalf("WhatIf created an index: %+v", ixs)
			}
			if _, err := e.CreateIndex("db", "c", IndexSpec{Name: p.Index, Key: D(t, c.key)}); err != nil {
				t.Fatal(err)
			}
			kind := ExplainFindOp
			if c.count {
				kind = ExplainCountOp
			}
			fs := FindSpec{Filter: q.Filter, Sort: q.Sort, Limit: c.limit}
			keys, docs := measured(t, e, kind, fs)
			if float64(keys) != p.KeysExamined || float64(docs) != p.DocsExamined {
				t.Errorf("predicted %.0f keys %.0f docs, built index examines %d and %d", p.KeysExamined, p.DocsExamined, keys, docs)
			}
		})
	}
}

// TestWhatIfSample: beyond the sample size the figures are weighted
// estimates, and the index size grows with the collection.
func TestWhatIfSample(t *testing.T) {
	defer func(n int) { whatIfSampleMax = n }(whatIfSampleMax)
	whatIfSampleMax = 250
	e := whatIfFixture(t, 2000)
	res, err := e.WhatIf(context.Background(), "db", "c", WhatIfQuery{Filter: D(t, bson.D{{Key: "cat", Value: "c1"}}), Find: true},
		[]IndexSpec{{Key: D(t, bson.D{{Key: "cat", Value: 1}})}})
	if err != nil {
		t.Fatal(err)
	}
	// All 200 matches are kept (a stratum within the bound), 250 of the
	// 1800 others.
	if res.Sampled != 450 || res.Docs != 2000 {
		t.Fatalf("sampled %d of %d, want 200 matching + 250 others", res.Sampled, res.Docs)
	}
	if k := res.Chosen.KeysExamined; math.Abs(k-200) > 1e-9 {
		t.Errorf("estimated %.1f keys for 200 matching documents", k)
	}
	full, err := e.WhatIf(context.Background(), "db", "c", WhatIfQuery{Filter: D(t, bson.D{{Key: "cat", Value: "c1"}})},
		[]IndexSpec{{Key: D(t, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: 1}, {Key: "tags", Value: 1}})}})
	if err != nil {
		t.Fatal(err)
	}
	if full.IndexBytes["cat_1_ts_1_tags_1"] <= res.IndexBytes["cat_1"] {
		t.Errorf("a wider multikey index is estimated smaller: %v vs %v", full.IndexBytes, res.IndexBytes)
	}
	// SORT_MERGE with a limit on a sample: the scans' read-ahead does not
	// scale, the results do.
	q := WhatIfQuery{Filter: D(t, bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{"c1", "c2", "c3"}}}}}),
		Sort: D(t, bson.D{{Key: "ts", Value: -1}}), Limit: 100, Find: true}
	key := D(t, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}})
	merged, err := e.WhatIf(context.Background(), "db", "c", q, []IndexSpec{{Key: key}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Name: "cat_1_ts_-1", Key: key}); err != nil {
		t.Fatal(err)
	}
	keys, docs := measured(t, e, ExplainFindOp, FindSpec{Filter: q.Filter, Sort: q.Sort, Limit: 100})
	if p := merged.Chosen; math.Abs(p.KeysExamined-float64(keys)) > 0.1*float64(keys) || math.Abs(p.DocsExamined-float64(docs)) > 0.1*float64(docs) {
		t.Errorf("sampled SORT_MERGE: predicted %.1f keys %.1f docs, measured %d and %d", p.KeysExamined, p.DocsExamined, keys, docs)
	}
}

// TestWhatIfErrors: a missing collection, and a text index as a
// hypothetical one.
func TestWhatIfErrors(t *testing.T) {
	e := whatIfFixture(t, 10)
	if _, err := e.WhatIf(context.Background(), "db", "nope", WhatIfQuery{}, nil); err == nil {
		t.Error("WhatIf on a missing collection succeeded")
	}
	_, err := e.WhatIf(context.Background(), "db", "c", WhatIfQuery{}, []IndexSpec{{Key: bsoncore.Document(D(t, bson.D{{Key: "loc", Value: "2dsphere"}}))}})
	if err == nil {
		t.Error("a geo hypothetical index was accepted")
	}
}

// TestWhatIfLimitOneOnAWeightedSample: a claim (limit 1 over an index
// that provides the sort) reads one key and one document even when each
// sampled match stands for several.
func TestWhatIfLimitOneOnAWeightedSample(t *testing.T) {
	defer func(n int) { whatIfSampleMax = n }(whatIfSampleMax)
	whatIfSampleMax = 50
	e := whatIfFixture(t, 2000)
	q := WhatIfQuery{Filter: D(t, bson.D{{Key: "cat", Value: "c1"}}), Sort: D(t, bson.D{{Key: "ts", Value: 1}}), Limit: 1}
	key := D(t, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: 1}})
	res, err := e.WhatIf(context.Background(), "db", "c", q, []IndexSpec{{Key: key}})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Chosen; p.KeysExamined != 1 || p.DocsExamined != 1 || p.Returned != 1 {
		t.Errorf("limit 1 on a weighted sample: %+v, want 1 key, 1 document, 1 result", p)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Name: "cat_1_ts_1", Key: key}); err != nil {
		t.Fatal(err)
	}
	if keys, docs := measured(t, e, ExplainFindOp, FindSpec{Filter: q.Filter, Sort: q.Sort, Limit: 1}); keys != 1 || docs != 1 {
		t.Errorf("the built index examines %d keys and %d documents", keys, docs)
	}
}

// TestWhatIfClaimOnAWeightedSample: the queue's claim, {startTime: null}
// (two point intervals, merged) sorted by createdOn with limit 1, over a
// sample where each waiting job stands for several.
func TestWhatIfClaimOnAWeightedSample(t *testing.T) {
	defer func(n int) { whatIfSampleMax = n }(whatIfSampleMax)
	whatIfSampleMax = 40
	e := openTest(t, "")
	docs := make([]bson.D, 1000)
	for i := range docs {
		var start any
		if i%5 == 0 {
			start = bson.DateTime(1)
		}
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "startTime", Value: start}, {Key: "createdOn", Value: bson.DateTime(int64(i))}}
	}
	insert(t, e, "db", "c", docs...)
	q := WhatIfQuery{Filter: D(t, bson.D{{Key: "startTime", Value: nil}}), Sort: D(t, bson.D{{Key: "createdOn", Value: 1}}), Limit: 1}
	key := D(t, bson.D{{Key: "startTime", Value: 1}, {Key: "createdOn", Value: 1}})
	res, err := e.WhatIf(context.Background(), "db", "c", q, []IndexSpec{{Key: key}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Name: "x", Key: key}); err != nil {
		t.Fatal(err)
	}
	keys, ndocs := measured(t, e, ExplainFindOp, FindSpec{Filter: q.Filter, Sort: q.Sort, Limit: 1})
	if p := res.Chosen; p.KeysExamined != float64(keys) || p.DocsExamined != float64(ndocs) {
		t.Errorf("claim on a weighted sample: predicted %.2f keys %.2f docs, the built index examines %d and %d", p.KeysExamined, p.DocsExamined, keys, ndocs)
	}
}
