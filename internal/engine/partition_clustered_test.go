package engine

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFindPartitionsClustered: a clustered collection's scan splits on
// the cluster key into parts that, read in order, give every matching
// document once and in _id order, whole or bounded on _id.
func TestFindPartitionsClustered(t *testing.T) {
	e := openTest(t, "")
	opts := D(t, bson.D{{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}})
	if err := e.CreateCollection("db", "c", CreateOptions{Raw: opts}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	oid := func(i int) bson.ObjectID { // the time of t0 + i s, the rest zero
		var id bson.ObjectID
		binary.BigEndian.PutUint32(id[:4], uint32(t0.Unix())+uint32(i))
		return id
	}
	const n = MinPartitionDocs + 2000
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: oid(i)}, {Key: "i", Value: int32(i)}}
	}
	insert(t, e, "db", "c", docs...)
	for _, tc := range []struct {
		filter bson.D
		from   int
	}{
		{bson.D{}, 0},
		{bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: oid(5000)}}}}, 5000},
	} {
		parts, err := e.FindPartitions(context.Background(), "db", "c", FindSpec{Filter: D(t, tc.filter)}, 4)
		if err != nil || len(parts) != 4 {
			t.Fatalf("filter %v: %d parts, %v", tc.filter, len(parts), err)
		}
		next := tc.from
		for k, p := range parts {
			got := 0
			for {
				d, err := p.Next()
				if err != nil {
					t.Fatal(err)
				}
				if d == nil {
					break
				}
				if i := d.Lookup("i").Int32(); int(i) != next {
					t.Fatalf("filter %v: part %d gave i %d, want %d", tc.filter, k, i, next)
				}
				next++
				got++
			}
			if got == 0 {
				t.Errorf("filter %v: part %d is empty", tc.filter, k)
			}
			p.Close()
		}
		if next != n {
			t.Fatalf("filter %v: the parts ended at %d, want %d", tc.filter, next, n)
		}
	}
}
