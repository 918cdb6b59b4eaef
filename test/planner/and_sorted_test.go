package planner_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// AND_SORTED: several $elemMatch conjuncts that each bound the whole
// compound multikey index to one point intersect their scans by record
// id, and FETCH reads only the documents in every scan. Results must be
// what a collection scan finds.
func TestAndSortedElemMatch(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("images")
	const n = 6000
	pair := func(k string, v any) bson.D { return bson.D{{Key: "key", Value: k}, {Key: "value", Value: v}} }
	testenv.InsertBatches(t, coll, n, func(i int) any {
		md := bson.A{
			pair("File Name", fmt.Sprintf("img_%d.jpg", i)),
			pair("Camera model", fmt.Sprintf("model %d", i%50)),
			pair("MIME type", []string{"image/jpeg", "image/png", "image/gif"}[i%3]),
			pair("Flash", []string{"No, auto", "Yes", "No", "Auto"}[i%4]),
		}
		if i%7 == 0 {
			// The key of one pair and the value of another: {key:
			// "Flash", value: "No, auto"} is in no single element.
			md = bson.A{pair("Camera model", "model 4"), pair("Flash", "Yes"), pair("Other", "No, auto"), pair("MIME type", "image/png")}
		}
		return bson.D{{Key: "_id", Value: i}, {Key: "metadata", Value: md}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	em := func(k string, v any) bson.D { return bson.D{{Key: "$elemMatch", Value: pair(k, v)}} }
	all := func(es ...bson.D) bson.D {
		a := bson.A{}
		for _, e := range es {
			a = append(a, e)
		}
		return bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: a}}}}
	}
	ids := func(filter bson.D, opts ...options.Lister[options.FindOptions]) []int {
		t.Helper()
		cur, err := coll.Find(context.Background(), filter, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var docs []struct {
			ID int `bson:"_id"`
		}
		if err := cur.All(context.Background(), &docs); err != nil {
			t.Fatal(err)
		}
		out := make([]int, 0, len(docs))
		for _, d := range docs {
			out = append(out, d.ID)
		}
		sort.Ints(out)
		return out
	}
	natural := options.Find().SetHint(bson.D{{Key: "$natural", Value: 1}})
	cases := []struct {
		name   string
		filter bson.D
		and    int // 1: AND_SORTED must win, -1: must not, 0: either
	}{
		{"two pairs", all(em("Camera model", "model 4"), em("Flash", "No, auto")), 1},
		{"three pairs", all(em("Camera model", "model 4"), em("Flash", "No, auto"), em("MIME type", "image/png")), 1},
		{"$and of $elemMatch", bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "metadata", Value: em("Flash", "No, auto")}}, bson.D{{Key: "metadata", Value: em("Camera model", "model 4")}}}}}, 1},
		{"empty intersection", all(em("Camera model", "model 1"), em("Flash", "No, auto")), 0},
		{"range pair stays one scan", all(em("Camera model", "model 4"), bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: "Flash"}, {Key: "value", Value: bson.D{{Key: "$gte", Value: "No"}}}}}}), -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := ids(tc.filter, natural)
			got := ids(tc.filter)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %d ids %v, collection scan finds %d %v", len(got), head(got), len(want), head(want))
			}
			small := ids(tc.filter, options.Find().SetBatchSize(7))
			if fmt.Sprint(small) != fmt.Sprint(want) {
				t.Fatalf("batchSize 7: got %d ids, want %d", len(small), len(want))
			}
			res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "images"}, {Key: "filter", Value: tc.filter}}, "executionStats")
			wp := res.Lookup("queryPlanner", "winningPlan").Document()
			and := testenv.FindStage(wp, "AND_SORTED")
			if tc.and != 0 && (tc.and > 0) != (and != nil) {
				t.Fatalf("AND_SORTED in winning plan: %v, want %v: %v", and != nil, tc.and > 0, wp)
			}
			es := res.Lookup("executionStats").Document()
			if got := es.Lookup("nReturned").AsInt64(); got != int64(len(want)) {
				t.Errorf("explain nReturned %d, want %d", got, len(want))
			}
			// A write with the same filter reaches the same documents once
			// each, even when it adds index keys in the scanned ranges.
			up, err := coll.UpdateMany(context.Background(), tc.filter,
				bson.D{{Key: "$push", Value: bson.D{{Key: "metadata", Value: pair("Flash", "No, auto")}}}})
			if err != nil {
				t.Fatal(err)
			}
			if up.MatchedCount != int64(len(want)) || up.ModifiedCount != int64(len(want)) {
				t.Errorf("updateMany matched %d modified %d, want %d", up.MatchedCount, up.ModifiedCount, len(want))
			}
			if tc.and > 0 {
				if len(want) == 0 {
					t.Fatal("the case needs results")
				}
				kids, _ := and.Lookup("inputStages").Array().Values()
				if len(kids) < 2 {
					t.Fatalf("AND_SORTED inputs %v", and)
				}
				// Only the decoys (every 7th document: the key of one
				// pair, the value of another) may be fetched and dropped.
				if docs := es.Lookup("totalDocsExamined").AsInt64(); docs > int64(len(want))+n/7+1 {
					t.Errorf("totalDocsExamined %d for %d results: the intersection fetches more than it should", docs, len(want))
				}
				eStage := testenv.FindStage(es.Lookup("executionStages").Document(), "AND_SORTED")
				if eStage == nil || !eStage.Lookup("failedAnd_1").IsNumber() {
					t.Errorf("executionStages AND_SORTED without failedAnd_1: %v", eStage)
				}
			}
		})
	}
}

// A scan that opens below the target seeks to it rather than stepping
// through its entries: a pair 100 images share intersected with one a
// quarter of the 4,000 share reads about two keys per image of the first,
// not the thousand entries of the second that come before them.
func TestAndSortedSeeksFromItsFirstEntry(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("images")
	pair := func(k string, v any) bson.D { return bson.D{{Key: "key", Value: k}, {Key: "value", Value: v}} }
	testenv.InsertBatches(t, coll, 4000, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "metadata", Value: bson.A{
			pair("Batch", i/100),
			pair("Flash", []string{"No, auto", "Yes", "No", "Auto"}[i%4]),
		}}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	em := func(k string, v any) bson.D { return bson.D{{Key: "$elemMatch", Value: pair(k, v)}} }
	filter := bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: bson.A{em("Batch", 39), em("Flash", "No, auto")}}}}}
	res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "images"}, {Key: "filter", Value: filter}}, "allPlansExecution")
	if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != 25 {
		t.Fatalf("nReturned %d, want 25", n)
	}
	// The winner's figures and the trial figures of the others.
	plans, _ := res.Lookup("executionStats", "allPlansExecution").Array().Values()
	docs := []bson.Raw{res.Lookup("executionStats").Document()}
	for _, p := range plans {
		docs = append(docs, p.Document())
	}
	seen := false
	for _, d := range docs {
		if testenv.FindStage(d.Lookup("executionStages").Document(), "AND_SORTED") == nil {
			continue
		}
		seen = true
		if k := d.Lookup("totalKeysExamined").AsInt64(); k > 300 {
			t.Errorf("AND_SORTED read %d keys for 25 results from 100 and 1,000 entries: %v", k, d)
		}
	}
	if !seen {
		t.Fatalf("no AND_SORTED candidate in allPlansExecution: %v", res.Lookup("executionStats"))
	}
}

func head(xs []int) []int {
	if len(xs) > 10 {
		return xs[:10]
	}
	return xs
}
