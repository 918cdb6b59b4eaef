package engine

import (
	"context"
	"math/rand"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestQueueClaimsWithEmptyRangeHints claims jobs in a loop (findAndModify
// {startTime: null} sorted by createdOn or by priority then createdOn)
// while inserting jobs before, inside and after the range the hints skip,
// plainly and through transactions, and checks that every claim returns
// the job a full scan would.
func TestQueueClaimsWithEmptyRangeHints(t *testing.T) {
	tests := []struct {
		name     string
		key      bson.D
		sort     bson.D
		priority bool
	}{
		{"fifo", bson.D{{Key: "startTime", Value: 1}, {Key: "createdOn", Value: 1}}, bson.D{{Key: "createdOn", Value: 1}}, false},
		{"priority", bson.D{{Key: "startTime", Value: 1}, {Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}, bson.D{{Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := openTest(t, "")
			ctx := context.Background()
			if _, err := e.CreateIndex("db", "jobs", IndexSpec{Name: "q", Key: D(t, tc.key)}); err != nil {
				t.Fatal(err)
			}
			type job struct {
				id, created int64
				prio        int32
			}
			var open []job
			nextID := int64(0)
			newJob := func(created int64, prio int32) bson.D {
				nextID++
				open = append(open, job{nextID, created, prio})
				return bson.D{{Key: "_id", Value: nextID}, {Key: "startTime", Value: nil}, {Key: "createdOn", Value: created}, {Key: "priority", Value: prio}}
			}
			for i := int64(0); i < 200; i++ {
				insert(t, e, "db", "jobs", newJob(1000+i*10, 0))
			}
			rng := rand.New(rand.NewSource(4))
			lo, hi := int64(1000), int64(3000)
			var pending *Txn
			var pendingJob job
			for step := 0; len(open) > 0; step++ {
				if step < 600 {
					switch rng.Intn(7) {
					case 0: // before every open job: before the skipped range
						lo--
						insert(t, e, "db", "jobs", newJob(lo, 0))
					case 1: // after every open job
						hi++
						insert(t, e, "db", "jobs", newJob(hi, 0))
					case 2: // among the claimed ones (a tombstone area)
						insert(t, e, "db", "jobs", newJob(lo+int64(rng.Intn(int(hi-lo))), 0))
					case 3: // higher priority (ordered first by the priority sort)
						insert(t, e, "db", "jobs", newJob(hi+int64(rng.Intn(100)), int32(1+rng.Intn(3))))
					case 4, 5: // through a transaction committed after this claim
						var err error
						if pending, err = e.BeginTxn(); err != nil {
							t.Fatal(err)
						}
						lo--
						raw := D(t, newJob(lo, int32(rng.Intn(2))))
						pendingJob = open[len(open)-1]
						open = open[:len(open)-1]
						if _, err := e.Insert(WithTxn(ctx, pending), "db", "jobs", []bsoncore.Document{raw}, WriteOptions{Ordered: true}); err != nil {
							t.Fatal(err)
						}
					}
				}
				sort.Slice(open, func(i, j int) bool {
					if tc.priority && open[i].prio != open[j].prio {
						return open[i].prio > open[j].prio
					}
					if open[i].created != open[j].created {
						return open[i].created < open[j].created
					}
					return open[i].id < open[j].id
				})
				// Ties on createdOn (case 2) are ordered by the index's
				// record id; every tied job was inserted in id order.
				want := open[0]
				res, err := e.FindAndModify(ctx, "db", "jobs", FindAndModifySpec{
					Query:  D(t, bson.D{{Key: "startTime", Value: nil}}),
					Sort:   D(t, tc.sort),
					Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: int64(step + 1)}}}}),
				})
				if err != nil {
					t.Fatal(err)
				}
				if res.Value == nil {
					t.Fatalf("step %d: no job claimed, want _id %d", step, want.id)
				}
				got := res.Value.Lookup("_id").Int64()
				if got != want.id {
					t.Fatalf("step %d: claimed _id %d (%s), want %d (createdOn %d, priority %d)", step, got, res.Value, want.id, want.created, want.prio)
				}
				open = open[1:]
				if pending != nil {
					// The transaction's job sorts before the hint this
					// claim recorded: the commit must invalidate it.
					if err := pending.Commit(ctx, false); err != nil {
						t.Fatal(err)
					}
					open = append(open, pendingJob)
					pending = nil
				}
				if step == 50 {
					c := e.cat.Load().lookup("db", "jobs")
					c.state.mu.Lock()
					n := len(c.state.hints.byIndex)
					c.state.mu.Unlock()
					if n == 0 {
						t.Fatal("no empty-range hint recorded after 50 claims")
					}
				}
			}
			res, err := e.FindAndModify(ctx, "db", "jobs", FindAndModifySpec{
				Query:  D(t, bson.D{{Key: "startTime", Value: nil}}),
				Sort:   D(t, tc.sort),
				Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: 0}}}}),
			})
			if err != nil || res.Value != nil {
				t.Fatalf("claim on an empty queue: %v, %v", res.Value, err)
			}
		})
	}
}
