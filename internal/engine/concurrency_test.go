package engine

import (
	"sync"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Seed 004's queue: concurrent consumers claim jobs with findAndModify;
// every job is claimed exactly once.
func TestFindAndModifyConcurrentClaims(t *testing.T) {
	e := openTest(t, "")
	const jobs, workers = 2000, 16
	docs := make([]bsoncore.Document, jobs)
	for i := range docs {
		docs[i] = D(t, bson.D{{Key: "_id", Value: i}, {Key: "startTime", Value: nil}, {Key: "createdOn", Value: i}})
	}
	if res, err := e.Insert(ctx, "q", "jobs", docs, WriteOptions{}); err != nil || res.N != jobs {
		t.Fatalf("insert: %+v %v", res, err)
	}
	claimed := make([]atomic.Int32, jobs)
	var total atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for {
				res, err := e.FindAndModify(ctx, "q", "jobs", FindAndModifySpec{
					Query:  D(t, bson.D{{Key: "startTime", Value: nil}}),
					Sort:   D(t, bson.D{{Key: "createdOn", Value: 1}}),
					Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: bson.DateTime(1)}, {Key: "worker", Value: w}}}}),
					New:    true,
				})
				if err != nil {
					t.Error(err)
					return
				}
				if res.Value == nil {
					if res.LastErrorObject.N != 0 {
						t.Errorf("no value but n=%d", res.LastErrorObject.N)
					}
					return
				}
				if !res.LastErrorObject.UpdatedExisting || res.Value.Lookup("worker").Int32() != int32(w) {
					t.Errorf("bad result %+v %s", res.LastErrorObject, bson.Raw(res.Value))
					return
				}
				claimed[res.Value.Lookup("_id").Int32()].Add(1)
				total.Add(1)
			}
		}(w)
	}
	wg.Wait()
	if total.Load() != jobs {
		t.Fatalf("claimed %d jobs, want %d", total.Load(), jobs)
	}
	for i := range claimed {
		if c := claimed[i].Load(); c != 1 {
			t.Fatalf("job %d claimed %d times", i, c)
		}
	}
}

func TestFindAndModifyRemoveUpsertProjection(t *testing.T) {
	e := openTest(t, "")
	insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 1}, {Key: "p", Value: 5}}, bson.D{{Key: "_id", Value: 2}, {Key: "p", Value: 9}})
	res, err := e.FindAndModify(ctx, "db", "c", FindAndModifySpec{
		Sort: D(t, bson.D{{Key: "p", Value: -1}}), Remove: true,
	})
	if err != nil || res.LastErrorObject.N != 1 || res.Value.Lookup("_id").Int32() != 2 {
		t.Fatalf("remove: %+v %v", res, err)
	}
	res, err = e.FindAndModify(ctx, "db", "c", FindAndModifySpec{
		Query:  D(t, bson.D{{Key: "_id", Value: 7}}),
		Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "p", Value: 1}}}}),
		Upsert: true, New: true,
		Fields: D(t, bson.D{{Key: "p", Value: 1}, {Key: "_id", Value: 0}}),
	})
	if err != nil || res.LastErrorObject.UpdatedExisting || res.LastErrorObject.Upserted.Int32() != 7 {
		t.Fatalf("upsert: %+v %v", res, err)
	}
	if got := bson.Raw(res.Value).String(); got != `{"p": {"$numberInt":"1"}}` {
		t.Fatalf("projected = %s", got)
	}
	res, err = e.FindAndModify(ctx, "db", "c", FindAndModifySpec{
		Query:  D(t, bson.D{{Key: "_id", Value: 1}}),
		Update: val(t, bson.D{{Key: "$inc", Value: bson.D{{Key: "p", Value: 1}}}}),
	})
	if err != nil || !res.LastErrorObject.UpdatedExisting || res.Value.Lookup("p").Int32() != 5 {
		t.Fatalf("pre-image: %+v %v", res, err)
	}
}

// j:true writers share fsyncs: fewer syncs than acknowledged writes.
func TestJournalGroupCommit(t *testing.T) {
	e := openTest(t, "")
	const writers, each = 16, 10
	before := e.StorageStats()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := e.Insert(ctx, "db", "j", []bsoncore.Document{D(t, bson.D{{Key: "w", Value: w}, {Key: "i", Value: i}})}, WriteOptions{Journal: true})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	after := e.StorageStats()
	acked := after.Commits - before.Commits
	syncs := after.Syncs - before.Syncs
	if acked < writers*each || syncs == 0 || syncs >= acked {
		t.Fatalf("acked=%d syncs=%d", acked, syncs)
	}
	t.Logf("acked=%d syncs=%d", acked, syncs)
}
