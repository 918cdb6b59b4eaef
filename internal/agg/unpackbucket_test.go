package agg_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/bsoncolumn"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// Two version-1 buckets of a collection {timeField: "t", metaField: "m"}:
// the second has no "x" at index 1 and a "y" only there.
const v1Buckets = `[
 {"_id": {"$oid": "659200800000000000000001"}, "control": {"version": 1, "min": {"_id": 10, "t": {"$date": "2024-01-01T00:00:00Z"}, "x": 1}, "max": {"_id": 12, "t": {"$date": "2024-01-01T00:00:02Z"}, "x": 3}},
  "meta": "a",
  "data": {"_id": {"0": 10, "1": 11, "2": 12}, "t": {"0": {"$date": "2024-01-01T00:00:00Z"}, "1": {"$date": "2024-01-01T00:00:01Z"}, "2": {"$date": "2024-01-01T00:00:02Z"}}, "x": {"0": 1, "1": 2, "2": 3}}},
 {"_id": {"$oid": "659352000000000000000002"}, "control": {"version": 1, "min": {"_id": 20, "t": {"$date": "2024-01-02T00:00:00Z"}, "x": 4, "y": "z"}, "max": {"_id": 21, "t": {"$date": "2024-01-02T00:00:01Z"}, "x": 4, "y": "z"}},
  "meta": {"k": "b"},
  "data": {"t": {"0": {"$date": "2024-01-02T00:00:00Z"}, "1": {"$date": "2024-01-02T00:00:01Z"}}, "_id": {"0": 20, "1": 21}, "x": {"0": 4}, "y": {"1": "z"}}}
]`

func TestUnpackBucketV1(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "b", v1Buckets)
	got, err := runPipeline(t, cat, "b", `[{"$_internalUnpackBucket": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	// The time field, the meta field, then the data columns in the
	// bucket's order.
	sameDocs(t, got, `[
	 {"t": {"$date": "2024-01-01T00:00:00Z"}, "m": "a", "_id": 10, "x": 1},
	 {"t": {"$date": "2024-01-01T00:00:01Z"}, "m": "a", "_id": 11, "x": 2},
	 {"t": {"$date": "2024-01-01T00:00:02Z"}, "m": "a", "_id": 12, "x": 3},
	 {"t": {"$date": "2024-01-02T00:00:00Z"}, "m": {"k": "b"}, "_id": 20, "x": 4},
	 {"t": {"$date": "2024-01-02T00:00:01Z"}, "m": {"k": "b"}, "_id": 21, "y": "z"}]`, false)

	got, err = runPipeline(t, cat, "b", `[{"$_internalUnpackBucket": {"include": ["x", "m"], "timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[{"m": "a", "x": 1}, {"m": "a", "x": 2}, {"m": "a", "x": 3}, {"m": {"k": "b"}, "x": 4}, {"m": {"k": "b"}}]`, false)

	got, err = runPipeline(t, cat, "b", `[{"$_internalUnpackBucket": {"exclude": ["t", "m", "_id"], "timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600,
	  "eventFilter": {"x": {"$gte": 2}}}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[{"x": 2}, {"x": 3}, {"x": 4}]`, false)

	got, err = runPipeline(t, cat, "b", `[{"$_unpackBucket": {"timeField": "t", "metaField": "m"}}, {"$count": "n"}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[{"n": 5}]`, false)
}

func TestUnpackBucketErrors(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "b", v1Buckets)
	for _, c := range []struct {
		spec string
		code errs.Code
	}{
		{`1`, errs.Location5346500},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "include": [], "exclude": []}`, errs.Location5408000},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "include": 1}`, errs.Location5346501},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "include": [1]}`, errs.Location5346502},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "include": ["a.b"]}`, errs.Location5346503},
		{`{"timeField": 1, "bucketMaxSpanSeconds": 1}`, errs.Location5346504},
		{`{"timeField": "t", "metaField": 1, "bucketMaxSpanSeconds": 1}`, errs.Location5346505},
		{`{"timeField": "t", "metaField": "a.b", "bucketMaxSpanSeconds": 1}`, errs.Location5545700},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "foo": 1}`, errs.Location5346506},
		{`{"bucketMaxSpanSeconds": 1}`, errs.Location5346508},
		{`{"timeField": "t"}`, errs.Location5510602},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1.5}`, errs.Location5510600},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 0}`, errs.Location5510601},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "computedMetaProjFields": "a"}`, errs.Location5509900},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "assumeNoMixedSchemaData": 1}`, errs.Location6067202},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "eventFilter": 1}`, errs.Location7026902},
		{`{"timeField": "t", "bucketMaxSpanSeconds": 1, "includeMinTimeAsMetadata": true}`, errs.NotImplemented},
		// Buckets with a meta read without a metaField.
		{`{"timeField": "t", "bucketMaxSpanSeconds": 3600}`, errs.Location5369601},
		// No time column.
		{`{"timeField": "u", "metaField": "m", "bucketMaxSpanSeconds": 3600}`, errs.Location5346700},
	} {
		_, err := runPipeline(t, cat, "b", `[{"$_internalUnpackBucket": `+c.spec+`}]`, runOpts{})
		wantCode(t, err, c.code)
	}
	_, err := runPipeline(t, cat, "b", `[{"$_unpackBucket": {"metaField": "m"}}]`, runOpts{})
	wantCode(t, err, errs.Location5612405)
	// The bounded sort needs the unpack's bounds.
	_, err = runPipeline(t, cat, "b", `[{"$_internalBoundedSort": {"sortKey": {"t": 1}, "bound": {"base": "min", "offsetSeconds": 0}}}]`, runOpts{})
	wantCode(t, err, errs.FailedToParse)
	_, err = runPipeline(t, cat, "b", `[`+unpackTM+`, {"$_internalBoundedSort": {"sortKey": {"t": -1}, "bound": {"base": "min", "offsetSeconds": 3600}}}]`, runOpts{})
	wantCode(t, err, errs.Location6369910) // the buckets come in ascending order
	got, err := runPipeline(t, cat, "b", `[{"$sort": {"_id": -1}}, `+unpackTM+`, {"$_internalBoundedSort": {"sortKey": {"t": -1}, "bound": {"base": "min", "offsetSeconds": 3600}, "limit": 2}}, {"$project": {"_id": 1}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[{"_id": 21}, {"_id": 20}]`, false)
	// A compressed bucket (version 2) unpacks as its version-1 form does;
	// a column that is not valid BSONColumn data is an error.
	v1 := parseDocs(t, `[{"_id": 1, "control": {"version": 1, "min": {"t": {"$date": "2026-03-01T10:00:00Z"}, "x": 1}, "max": {"t": {"$date": "2026-03-01T10:00:02Z"}, "x": 3}},
		"data": {"t": {"0": {"$date": "2026-03-01T10:00:02Z"}, "1": {"$date": "2026-03-01T10:00:00Z"}}, "x": {"0": 3, "1": 1}}}]`)[0]
	v2, err := bsoncolumn.CompressBucket(v1, "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Insert(context.Background(), testDB, "c", []bsoncore.Document{v2}); err != nil {
		t.Fatal(err)
	}
	got, err = runPipeline(t, cat, "c", `[{"$_internalUnpackBucket": {"timeField": "t", "bucketMaxSpanSeconds": 3600}}, {"$project": {"_id": 0}}]`, runOpts{})
	if err != nil || len(got) != 2 || got[0].Lookup("x").Int32() != 1 || got[1].Lookup("x").Int32() != 3 {
		t.Fatalf("a version-2 bucket unpacked as %v, %v: want x 1 then 3 (sorted by time)", got, err)
	}
	insert(t, cat, "c2", `[{"_id": 1, "control": {"version": 2, "count": 1}, "data": {"t": {"$binary": {"base64": "/w==", "subType": "07"}}}}]`)
	if _, err = runPipeline(t, cat, "c2", `[{"$_internalUnpackBucket": {"timeField": "t", "bucketMaxSpanSeconds": 3600}}]`, runOpts{}); err == nil {
		t.Fatal("a malformed column unpacked without an error")
	}
}

const unpackTM = `{"$_internalUnpackBucket": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600}}`

// explainShape returns the stages of an explain, the $cursor entry as its
// parsed query, the others as their spec.
func explainShape(t *testing.T, cat agg.Catalog, pipeline string) []string {
	t.Helper()
	var out []string
	for _, s := range explainStages(t, explainPipeline(t, cat, "b", pipeline, "", nil)) {
		if c, err := s.LookupErr("$cursor"); err == nil {
			out = append(out, "cursor "+c.Document().Lookup("queryPlanner", "parsedQuery").String())
			continue
		}
		out = append(out, s.String())
	}
	return out
}

func TestUnpackBucketRewrites(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "b", v1Buckets)
	for _, c := range []struct {
		pipeline string
		want     string
		// shape holds what explain must show, in order.
		shape []string
	}{
		// A meta predicate goes down whole, renamed: no eventFilter.
		{`[` + unpackTM + `, {"$match": {"m.k": "b"}}]`,
			`[{"t": {"$date": "2024-01-02T00:00:00Z"}, "m": {"k": "b"}, "_id": 20, "x": 4},
			  {"t": {"$date": "2024-01-02T00:00:01Z"}, "m": {"k": "b"}, "_id": 21, "y": "z"}]`,
			[]string{`cursor {"meta.k": {"$eq": "b"}}`, `{"$_internalUnpackBucket": {"exclude": [],"timeField": "t","metaField": "m","bucketMaxSpanSeconds": {"$numberInt":"3600"}}}`}},
		// A time range: bucket-level bounds before, the predicate as
		// eventFilter, wholeBucketFilter for buckets wholly inside.
		{`[` + unpackTM + `, {"$match": {"t": {"$gte": {"$date": "2024-01-01T00:00:01Z"}, "$lt": {"$date": "2024-01-02T00:00:00Z"}}}}, {"$project": {"_id": 1}}]`,
			`[{"_id": 11}, {"_id": 12}]`,
			[]string{`"control.max.t"`, `"control.min.t"`, `"_id": {"$gte": {"$oid":"6591f2710000000000000000"}}`,
				`"include": ["_id","t"]`, `"wholeBucketFilter"`, `"eventFilter"`}},
		// $group on the meta field with $min/$max/count reads no
		// measurement.
		{`[` + unpackTM + `, {"$group": {"_id": "$m", "n": {"$sum": 1}, "lo": {"$min": "$x"}, "hi": {"$max": "$x"}}}]`,
			`[{"_id": "a", "n": 3, "lo": 1, "hi": 3}, {"_id": {"k": "b"}, "n": 2, "lo": 4, "hi": 4}]`,
			[]string{`{"$group": {"_id": "$meta"`, `"$control.min.x"`}},
		{`[` + unpackTM + `, {"$count": "n"}]`, `[{"n": 5}]`, []string{`"$control.count"`}},
		// $sort on meta and $limit go before the unpack.
		{`[` + unpackTM + `, {"$sort": {"m": -1}}, {"$limit": 1}, {"$project": {"x": 1, "_id": 0}}]`,
			`[{"x": 4}]`, []string{`{"$limit": {"$numberLong":"1"}}`}},
	} {
		got, err := runPipeline(t, cat, "b", c.pipeline, runOpts{})
		if err != nil {
			t.Fatalf("%s: %v", c.pipeline, err)
		}
		sameDocs(t, got, c.want, true)
		shape := strings.Join(explainShape(t, cat, c.pipeline), "\n")
		for _, w := range c.shape {
			if !strings.Contains(shape, w) {
				t.Errorf("%s: explain lacks %s:\n%s", c.pipeline, w, shape)
			}
		}
	}
}

// A $group over unpacked buckets runs on parts of the buckets, each
// unpacked by its own goroutine, and gives what one goroutine gives, in
// the same order ($push, $first, $last see the measurements in bucket
// order).
func TestUnpackBucketParallelGroup(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core")
	}
	cat := openCat(t)
	var b strings.Builder
	b.WriteString("[")
	for k := 0; k < 200; k++ {
		if k > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"_id": %d, "control": {"version": 1}, "meta": %d, "data": {"t": {"0": {"$date": "2024-01-01T00:00:00Z"}, "1": {"$date": "2024-01-01T00:00:01Z"}, "2": {"$date": "2024-01-01T00:00:02Z"}}, "x": {"0": %d, "2": %d}}}`, k, k%7, 2*k, 2*k+1)
	}
	b.WriteString("]")
	insert(t, cat, "pb", b.String())
	stats := statsOf(cat)
	group := `{"$group": {"_id": "$m", "xs": {"$push": "$x"}, "first": {"$first": "$x"}, "last": {"$last": "$x"}, "n": {"$sum": 1}}}`
	before := stats.ParallelGroups.Load()
	par, err := runPipeline(t, cat, "pb", `[`+unpackTM+`, `+group+`]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.ParallelGroups.Load()-before != 1 {
		t.Fatalf("%d parallel $group runs, want 1", stats.ParallelGroups.Load()-before)
	}
	seq, err := runPipeline(t, cat, "pb", `[`+unpackTM+`, {"$skip": 0}, `+group+`]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.ParallelGroups.Load()-before != 1 {
		t.Fatal("the $group after $skip ran in parallel")
	}
	if show(par) != show(seq) || len(par) != 7 {
		t.Fatalf("parallel:%s\nsequential:%s", show(par), show(seq))
	}
	// A $project the $group cannot take in (a nested computed field)
	// runs on each part.
	proj := `{"$project": {"m": 1, "d": {"x2": {"$multiply": ["$x", 2]}, "s": {"$second": "$t"}}}}`
	group2 := `{"$group": {"_id": {"m": "$m", "s": "$d.s"}, "xs": {"$push": "$d.x2"}, "n": {"$sum": 1}}}`
	par, err = runPipeline(t, cat, "pb", `[`+unpackTM+`, `+proj+`, `+group2+`]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if stats.ParallelGroups.Load()-before != 2 {
		t.Fatalf("%d parallel $group runs, want 2", stats.ParallelGroups.Load()-before)
	}
	seq, err = runPipeline(t, cat, "pb", `[`+unpackTM+`, {"$skip": 0}, `+proj+`, `+group2+`]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if show(par) != show(seq) || len(par) != 21 {
		t.Fatalf("parallel:%s\nsequential:%s", show(par), show(seq))
	}
}

// A $match with $expr on the command's variables stays a $match after
// the unpack, which evaluates them.
func TestUnpackBucketMatchWithLet(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "b", v1Buckets)
	epc := expr.NewParseContext()
	vars := expr.NewVars(time.Now())
	vars.Set(epc.Define("lo"), expr.Int32(2))
	p, err := agg.Parse(parseDocs(t, `[`+unpackTM+`, {"$match": {"$expr": {"$gte": ["$x", "$$lo"]}}}, {"$project": {"_id": 1}}]`),
		&agg.ParseContext{DB: testDB, Coll: "b", Expr: epc, Params: paramsOf(cat)})
	if err != nil {
		t.Fatal(err)
	}
	it, err := p.Run(context.Background(), cat, vars)
	if err != nil {
		t.Fatal(err)
	}
	var got []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			break
		}
		got = append(got, d)
	}
	it.Close()
	sameDocs(t, got, `[{"_id": 11}, {"_id": 12}, {"_id": 20}]`, true)
}
