package aggregation_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// The read side of time series collections through the Go driver: a
// clustered system.buckets collection filled by hand with version-1
// buckets in mongod's shape, read with $_internalUnpackBucket first (as
// the time series view's pipeline does), against the same measurements
// stored as plain documents.

// tsStart is the first hour of the measurements.
var tsStart = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

const (
	tsDays    = 3
	tsPerHour = 6 // one measurement every 10 minutes
)

var tsHosts = []string{"h1", "h2"}
var tsPaths = []string{"/a", "/b", "/c"}

// tsMeasurement is the i-th measurement of host h in hour hr, in the
// field order unpacking gives: time, meta, then the data columns.
func tsMeasurement(h, hr, i int) bson.D {
	t := tsStart.Add(time.Duration(hr)*time.Hour + time.Duration(i)*10*time.Minute + time.Duration(h)*time.Second)
	n := (hr*tsPerHour+i)*len(tsHosts) + h
	m := bson.D{{Key: "time", Value: t}, {Key: "host", Value: tsHosts[h]}, {Key: "_id", Value: int32(n)}, {Key: "path", Value: tsPaths[n%len(tsPaths)]}}
	if n%5 != 0 { // some measurements have no status
		m = append(m, bson.E{Key: "status", Value: int32(200 + n%3)})
	}
	return m
}

// tsBucket is the bucket of host h's measurements in hour hr, as mongod
// 7.0 builds it: an _id whose time is the hour, control.min/max per
// field, meta, and the data columns keyed "0", "1", ....
func tsBucket(h, hr int) bson.D {
	var ms []bson.D
	for i := 0; i < tsPerHour; i++ {
		ms = append(ms, tsMeasurement(h, hr, i))
	}
	cols := map[string]bson.D{}
	order := []string{}
	min, max := bson.D{}, bson.D{}
	for i, m := range ms {
		for _, e := range m {
			if e.Key == "host" {
				continue
			}
			if _, ok := cols[e.Key]; !ok {
				order = append(order, e.Key)
			}
			cols[e.Key] = append(cols[e.Key], bson.E{Key: strconv.Itoa(i), Value: e.Value})
		}
	}
	for _, f := range order {
		col := cols[f]
		lo, hi := col[0].Value, col[0].Value
		for _, e := range col[1:] {
			if lessBSON(e.Value, lo) {
				lo = e.Value
			}
			if lessBSON(hi, e.Value) {
				hi = e.Value
			}
		}
		if f == "time" {
			lo = tsStart.Add(time.Duration(hr) * time.Hour) // rounded down to the hour
		}
		min = append(min, bson.E{Key: f, Value: lo})
		max = append(max, bson.E{Key: f, Value: hi})
	}
	data := bson.D{}
	for _, f := range order {
		data = append(data, bson.E{Key: f, Value: cols[f]})
	}
	var oid bson.ObjectID
	binary.BigEndian.PutUint32(oid[:4], uint32(tsStart.Add(time.Duration(hr)*time.Hour).Unix()))
	oid[11] = byte(h)
	return bson.D{{Key: "_id", Value: oid},
		{Key: "control", Value: bson.D{{Key: "version", Value: int32(1)}, {Key: "min", Value: min}, {Key: "max", Value: max}}},
		{Key: "meta", Value: tsHosts[h]}, {Key: "data", Value: data}}
}

// lessBSON orders the values the buckets hold (ints, strings, dates).
func lessBSON(a, b any) bool {
	switch x := a.(type) {
	case int32:
		return x < b.(int32)
	case string:
		return x < b.(string)
	case time.Time:
		return x.Before(b.(time.Time))
	}
	panic(fmt.Sprintf("lessBSON %T", a))
}

// tsSetup fills bucketsw (a clustered collection standing for system.buckets.w, whose name only TS-A's create makes) with the buckets and plain with the
// same measurements.
func tsSetup(t *testing.T) (*mongo.Database, *mongo.Collection, *mongo.Collection) {
	t.Helper()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	o := options.CreateCollection().SetClusteredIndex(bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}})
	if err := d.CreateCollection(c, "bucketsw", o); err != nil {
		t.Fatal(err)
	}
	buckets, plain := d.Collection("bucketsw"), d.Collection("plain")
	var bs, ps []any
	for hr := 0; hr < tsDays*24; hr++ {
		for h := range tsHosts {
			bs = append(bs, tsBucket(h, hr))
			for i := 0; i < tsPerHour; i++ {
				ps = append(ps, tsMeasurement(h, hr, i))
			}
		}
	}
	if _, err := buckets.InsertMany(c, bs); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.InsertMany(c, ps); err != nil {
		t.Fatal(err)
	}
	return d, buckets, plain
}

// sortedFields renders r with its top-level fields sorted by name.
func sortedFields(t *testing.T, r bson.Raw) string {
	t.Helper()
	var d bson.D
	if err := bson.Unmarshal(r, &d); err != nil {
		t.Fatal(err)
	}
	sort.Slice(d, func(i, j int) bool { return d[i].Key < d[j].Key })
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return bson.Raw(b).String()
}

var tsUnpack = bson.D{{Key: "$_internalUnpackBucket", Value: bson.D{{Key: "timeField", Value: "time"}, {Key: "metaField", Value: "host"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}}}}

// aggregateRaw returns the results of pipeline, each with its top-level
// fields sorted by name (a plain collection stores _id first, unpacking
// puts the time and meta fields first), and the field names of the
// first as returned.
func aggregateRaw(t *testing.T, coll *mongo.Collection, pipeline bson.A) ([]string, string) {
	t.Helper()
	cur, err := coll.Aggregate(testenv.Ctx(t), pipeline)
	if err != nil {
		t.Fatalf("%v: %v", pipeline, err)
	}
	var out []string
	first := ""
	for cur.Next(testenv.Ctx(t)) {
		if first == "" {
			first = rawKeys(cur.Current)
		}
		out = append(out, sortedFields(t, cur.Current))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out, first
}

func TestTimeseriesUnpackMatchesPlain(t *testing.T) {
	t.Parallel()
	_, buckets, plain := tsSetup(t)
	day2 := tsStart.AddDate(0, 0, 1)
	day3 := tsStart.AddDate(0, 0, 2)
	for _, p := range []bson.A{
		{},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: day2}, {Key: "$lt", Value: day3}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gt", Value: day2.Add(25 * time.Minute)}, {Key: "$lte", Value: day2.Add(3 * time.Hour)}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: day2.Add(10*time.Minute + time.Second)}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "host", Value: "h2"}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "host", Value: "h1"}, {Key: "time", Value: bson.D{{Key: "$lt", Value: tsStart.Add(2 * time.Hour)}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "host", Value: "h1"}}, bson.D{{Key: "status", Value: int32(201)}}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "status", Value: bson.D{{Key: "$exists", Value: false}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "status", Value: int32(201)}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "status", Value: bson.D{{Key: "$gt", Value: int32(200)}, {Key: "$lte", Value: 201.5}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "path", Value: "/b"}, {Key: "time", Value: bson.D{{Key: "$gte", Value: day2}}}}}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: int32(40)}}}}}}, bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}},
		{bson.D{{Key: "$unset", Value: bson.A{"status", "host"}}}},
		{bson.D{{Key: "$project", Value: bson.D{{Key: "path", Value: true}, {Key: "_id", Value: false}}}}},
		{bson.D{{Key: "$project", Value: bson.D{{Key: "status", Value: false}}}}},
		{bson.D{{Key: "$sort", Value: bson.D{{Key: "host", Value: -1}}}}, bson.D{{Key: "$limit", Value: 3}}},
		{bson.D{{Key: "$limit", Value: 4}}},
		{bson.D{{Key: "$count", Value: "n"}}},
		{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$host"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
			{Key: "first", Value: bson.D{{Key: "$min", Value: "$_id"}}}, {Key: "last", Value: bson.D{{Key: "$max", Value: "$time"}}}}}},
			bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}},
		{bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: 1}}}}},
		{bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: -1}}}}, bson.D{{Key: "$limit", Value: 5}}},
		{bson.D{{Key: "$match", Value: bson.D{{Key: "status", Value: int32(201)}}}}, bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: -1}}}},
			bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}}},
		lastpoint("$first", -1),
		lastpoint("$last", 1),
		append(hitsPerDayPipeline(tsStart.Add(5*time.Hour), day3.Add(7*time.Hour)), bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}),
	} {
		want, _ := aggregateRaw(t, plain, p)
		got, keys := aggregateRaw(t, buckets, append(bson.A{tsUnpack}, p...))
		if len(p) == 0 && keys != "time,host,_id,path" {
			t.Errorf("a measurement's fields %s, want the time field, the meta field, then the data columns", keys)
		}
		if len(want) == 0 {
			t.Fatalf("%v: the plain collection returns nothing", p)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%v:\ngot  %d: %.600s\nwant %d: %.600s", p, len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
		}
	}
}

// lastpoint is the latest measurement of each host: a $sort on the host
// and the time (time in direction dir) and a $group taking acc of each.
func lastpoint(acc string, dir int32) bson.A {
	return bson.A{
		bson.D{{Key: "$sort", Value: bson.D{{Key: "host", Value: int32(1)}, {Key: "time", Value: dir}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$host"}, {Key: "t", Value: bson.D{{Key: acc, Value: "$time"}}},
			{Key: "p", Value: bson.D{{Key: acc, Value: "$path"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
}

// The latest measurements, sorted on time with a limit, read only the
// latest buckets: the buckets come in _id order and a bounded sort holds
// only what a later bucket could still precede.
func TestTimeseriesLatestReadsLatestBuckets(t *testing.T) {
	t.Parallel()
	d, buckets, _ := tsSetup(t)
	p := bson.A{tsUnpack, bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: -1}}}}, bson.D{{Key: "$limit", Value: 3}}}
	res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: buckets.Name()}, {Key: "pipeline", Value: p}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	vals, _ := res.Lookup("stages").Array().Values()
	if len(vals) != 3 {
		t.Fatalf("stages %s", res.Lookup("stages"))
	}
	cursor := vals[0].Document().Lookup("$cursor").Document()
	if st := testenv.Stages(cursor.Lookup("queryPlanner", "winningPlan").Document()); fmt.Sprint(st) != "[COLLSCAN]" {
		t.Errorf("the buckets are not read in _id order by the scan: %v", st)
	}
	if n := cursor.Lookup("executionStats", "totalDocsExamined").AsInt64(); n > 8 {
		t.Errorf("read %d buckets for the 3 latest measurements", n)
	}
	bs := vals[2].Document()
	if got := bs.Lookup("$_internalBoundedSort").String(); got != `{"sortKey": {"time": {"$numberInt":"-1"}},"bound": {"base": "min","offsetSeconds": {"$numberLong":"3600"}},"limit": {"$numberLong":"3"}}` {
		t.Errorf("stage 2: %s", bs)
	}
	if n := bs.Lookup("nReturned").AsInt64(); n != 3 {
		t.Errorf("the bounded sort returned %d", n)
	}
}

// The lastpoint rewrite unpacks one bucket per host.
func TestTimeseriesLastpointUnpacksOneBucketPerMeta(t *testing.T) {
	t.Parallel()
	d, buckets, _ := tsSetup(t)
	for _, p := range []bson.A{lastpoint("$first", -1), lastpoint("$last", 1)} {
		res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: buckets.Name()}, {Key: "pipeline", Value: append(bson.A{tsUnpack}, p...)},
			{Key: "cursor", Value: bson.D{}}}, "executionStats")
		vals, _ := res.Lookup("stages").Array().Values()
		found := false
		for _, v := range vals {
			if u, err := v.Document().LookupErr("$_internalUnpackBucket"); err == nil {
				found = true
				if n := v.Document().Lookup("nReturned").AsInt64(); n != int64(len(tsHosts)*tsPerHour) {
					t.Errorf("%v: unpacked %d measurements, want the %d of one bucket per host: %s", p, n, len(tsHosts)*tsPerHour, u)
				}
			}
		}
		if !found {
			t.Fatalf("no $_internalUnpackBucket in %s", res)
		}
	}
}

// A one-day time range reads only the buckets that can hold that day's
// measurements: that day's, and those of the bucket span before it.
func TestTimeseriesOneDayReadsItsBuckets(t *testing.T) {
	t.Parallel()
	d, buckets, _ := tsSetup(t)
	day2 := tsStart.AddDate(0, 0, 1)
	pipeline := bson.A{tsUnpack,
		bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: day2}, {Key: "$lt", Value: day2.AddDate(0, 0, 1)}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$path"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}
	res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: buckets.Name()}, {Key: "pipeline", Value: pipeline}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	stages, err := res.LookupErr("stages")
	if err != nil {
		t.Fatalf("no stages: %s", res)
	}
	vals, _ := stages.Array().Values()
	if len(vals) < 3 {
		t.Fatalf("stages %s", stages)
	}
	cursor := vals[0].Document().Lookup("$cursor")
	es := cursor.Document().Lookup("executionStats").Document()
	// 24 hours of 2 hosts, and the 2 buckets of the hour before (their
	// span may reach into the day).
	if n := es.Lookup("totalDocsExamined").AsInt64(); n > 50 {
		t.Errorf("totalDocsExamined %d, want at most 50 of %d buckets: %s", n, tsDays*24*len(tsHosts), es)
	}
	if n := es.Lookup("nReturned").AsInt64(); n != 48 && n != 50 {
		t.Errorf("the bucket filter returned %d buckets, want 48 (or 50 with the hour before)", n)
	}
	plan := cursor.Document().Lookup("queryPlanner", "winningPlan").Document()
	if testenv.FindStage(plan, "CLUSTERED_IXSCAN") == nil && testenv.FindStage(plan, "IXSCAN") == nil {
		t.Errorf("the bucket filter does not use the clustered _id bounds or an index: %s", plan)
	}
	unpack, err := vals[1].Document().LookupErr("$_internalUnpackBucket")
	if err != nil {
		t.Fatalf("stage 1 is not $_internalUnpackBucket: %s", vals[1])
	}
	for _, f := range []string{"include", "timeField", "metaField", "bucketMaxSpanSeconds", "wholeBucketFilter", "eventFilter"} {
		if _, err := unpack.Document().LookupErr(f); err != nil {
			t.Errorf("$_internalUnpackBucket lacks %s: %s", f, unpack)
		}
	}
	if got := unpack.Document().Lookup("include").String(); got != `["path","time"]` {
		t.Errorf("include %s, want [\"path\",\"time\"]", got)
	}
	if n := vals[1].Document().Lookup("nReturned").AsInt64(); n != 24*tsPerHour*int64(len(tsHosts)) {
		t.Errorf("unpacked %d measurements, want %d", n, 24*tsPerHour*len(tsHosts))
	}

	// A predicate on a measurement field keeps the buckets whose
	// control.min/max allow it: ids below 40 are in the first 4 hours.
	res = testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: buckets.Name()}, {Key: "pipeline", Value: bson.A{tsUnpack,
		bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: int32(40)}}}}}}}}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	vals, _ = res.Lookup("stages").Array().Values()
	if n := vals[0].Document().Lookup("$cursor", "executionStats", "nReturned").AsInt64(); n != 8 {
		t.Errorf("the bucket filter of _id < 40 returned %d buckets, want 8: %s", n, vals[0])
	}

	// A $or of two hours keeps the buckets of those hours (and of the
	// hours before, whose span reaches into them).
	hour := func(h int) bson.D {
		at := tsStart.Add(time.Duration(h) * time.Hour)
		return bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: at}, {Key: "$lt", Value: at.Add(time.Hour)}}}}
	}
	res = testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: buckets.Name()}, {Key: "pipeline", Value: bson.A{tsUnpack,
		bson.D{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{hour(5), hour(30)}}}}}}}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	vals, _ = res.Lookup("stages").Array().Values()
	if n := vals[0].Document().Lookup("$cursor", "executionStats", "nReturned").AsInt64(); n > 8 {
		t.Errorf("the bucket filter of two hours returned %d buckets, want at most 8: %s", n, vals[0])
	}
	if n := vals[1].Document().Lookup("nReturned").AsInt64(); n != 2*tsPerHour*int64(len(tsHosts)) {
		t.Errorf("two hours unpacked to %d measurements", n)
	}

	// A meta predicate reaches an index on the bucket's meta.
	if _, err := buckets.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: bson.D{{Key: "meta", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	res = testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: buckets.Name()}, {Key: "pipeline", Value: bson.A{tsUnpack,
		bson.D{{Key: "$match", Value: bson.D{{Key: "host", Value: "h2"}}}}}}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	vals, _ = res.Lookup("stages").Array().Values()
	cursor = vals[0].Document().Lookup("$cursor")
	ix := testenv.FindStage(cursor.Document().Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != "meta_1" {
		t.Errorf("the meta predicate does not use meta_1: %s", cursor)
	}
	if n := cursor.Document().Lookup("executionStats", "totalDocsExamined").AsInt64(); n != tsDays*24 {
		t.Errorf("totalDocsExamined %d, want the %d buckets of h2", n, tsDays*24)
	}
	if _, err := vals[1].Document().Lookup("$_internalUnpackBucket").Document().LookupErr("eventFilter"); err == nil {
		t.Errorf("a meta-only $match left an eventFilter: %s", vals[1])
	}
}

// Through a view whose pipeline is the unpack (what a time series
// namespace is), find and aggregate read the measurements, and a
// one-day find reads only that day's buckets.
func TestTimeseriesThroughView(t *testing.T) {
	t.Parallel()
	d, _, plain := tsSetup(t)
	c := testenv.Ctx(t)
	if err := d.CreateView(c, "w", "bucketsw", bson.A{tsUnpack}); err != nil {
		t.Fatal(err)
	}
	w := d.Collection("w")
	day2 := tsStart.AddDate(0, 0, 1)
	filter := bson.D{{Key: "host", Value: "h1"}, {Key: "time", Value: bson.D{{Key: "$gte", Value: day2}, {Key: "$lt", Value: day2.Add(time.Hour)}}}}
	find := func(coll *mongo.Collection) []string {
		cur, err := coll.Find(c, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetProjection(bson.D{{Key: "status", Value: 0}}))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for cur.Next(c) {
			out = append(out, sortedFields(t, cur.Current))
		}
		return out
	}
	got, want := find(w), find(plain)
	if len(want) != tsPerHour || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("find on the view:\n%v\nwant\n%v", got, want)
	}
	// The latest measurements through find's sort and limit.
	latest := func(coll *mongo.Collection) []string {
		cur, err := coll.Find(c, bson.D{{Key: "host", Value: "h2"}}, options.Find().SetSort(bson.D{{Key: "time", Value: -1}}).SetLimit(4))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for cur.Next(c) {
			out = append(out, sortedFields(t, cur.Current))
		}
		return out
	}
	if got, want := latest(w), latest(plain); len(want) != 4 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("latest on the view:\n%v\nwant\n%v", got, want)
	}
	n, err := w.CountDocuments(c, bson.D{{Key: "host", Value: "h2"}})
	if err != nil || n != tsDays*24*tsPerHour {
		t.Fatalf("countDocuments on the view: %d, %v", n, err)
	}
	res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "w"}, {Key: "filter", Value: filter}}, "executionStats")
	stages, err := res.LookupErr("stages")
	if err != nil {
		t.Fatalf("explain of a find on the view: %s", res)
	}
	vals, _ := stages.Array().Values()
	es := vals[0].Document().Lookup("$cursor", "executionStats").Document()
	// The _id range holds the hour's and the hour before's buckets of
	// both hosts; the meta predicate keeps h1's hour.
	if n := es.Lookup("totalDocsExamined").AsInt64(); n > 4 {
		t.Errorf("an hour of one host read %d buckets, want at most 4: %s", n, es)
	}
	if n := es.Lookup("nReturned").AsInt64(); n != 1 {
		t.Errorf("the bucket filter returned %d buckets, want 1", n)
	}
	if _, err := vals[1].Document().LookupErr("$_internalUnpackBucket"); err != nil {
		t.Errorf("stage 1 is not the unpack: %s", vals[1])
	}
}

// Random $match filters on the time, meta and measurement fields, with
// the rest of the pipeline varied, return over the buckets what they
// return over the plain documents: the bucket-level predicates never
// lose a measurement.
func TestTimeseriesRandomFiltersMatchPlain(t *testing.T) {
	t.Parallel()
	_, buckets, plain := tsSetup(t)
	rng := rand.New(rand.NewPCG(34, 3))
	span := time.Duration(tsDays*24) * time.Hour
	randTime := func() time.Time {
		return tsStart.Add(-time.Hour + time.Duration(rng.Int64N(int64(span+2*time.Hour))).Truncate(time.Second*time.Duration(1+rng.IntN(600))))
	}
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte"}
	clause := func() bson.E {
		switch rng.IntN(6) {
		case 0, 1:
			d := bson.D{}
			for k := 0; k < 1+rng.IntN(2); k++ {
				d = append(d, bson.E{Key: ops[rng.IntN(len(ops))], Value: randTime()})
			}
			return bson.E{Key: "time", Value: d}
		case 2:
			return bson.E{Key: "host", Value: tsHosts[rng.IntN(len(tsHosts))]}
		case 3:
			return bson.E{Key: "status", Value: bson.D{{Key: ops[rng.IntN(len(ops))], Value: int32(199 + rng.IntN(5))}}}
		case 4:
			return bson.E{Key: "path", Value: bson.D{{Key: ops[rng.IntN(len(ops))], Value: tsPaths[rng.IntN(len(tsPaths))]}}}
		default:
			return bson.E{Key: "$or", Value: bson.A{
				bson.D{{Key: "host", Value: tsHosts[rng.IntN(len(tsHosts))]}},
				bson.D{{Key: "time", Value: bson.D{{Key: "$lt", Value: randTime()}}}}}}
		}
	}
	tails := []bson.A{
		{bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}},
		{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$path"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}, bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}},
		{bson.D{{Key: "$count", Value: "n"}}},
		{bson.D{{Key: "$project", Value: bson.D{{Key: "status", Value: 1}}}}, bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}},
		{bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: -1}}}}, bson.D{{Key: "$limit", Value: 7}}},
		{bson.D{{Key: "$sort", Value: bson.D{{Key: "time", Value: 1}}}}},
	}
	for i := 0; i < 60; i++ {
		f := bson.D{}
		for k := 0; k < 1+rng.IntN(3); k++ {
			f = append(f, clause())
		}
		p := append(bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "$and", Value: bson.A{f}}}}}}, tails[rng.IntN(len(tails))]...)
		want, _ := aggregateRaw(t, plain, p)
		got, _ := aggregateRaw(t, buckets, append(bson.A{tsUnpack}, p...))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%v:\ngot  %d: %.400s\nwant %d: %.400s", p, len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
		}
	}
}
