package engine

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkInsertStore measures inserts through the whole write path down
// to the storage batch (record id allocation, the record, the _id index's
// unique check and entry, a secondary index's entry, the commit without
// sync), one document per call and 100 per call.
func BenchmarkInsertStore(b *testing.B) {
	for _, per := range []int{1, 100} {
		name := "one"
		if per > 1 {
			name = "batch100"
		}
		b.Run(name, func(b *testing.B) {
			e, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			key, _ := bson.Marshal(bson.D{{Key: "a", Value: 1}})
			if _, err := e.CreateIndex("db", "c", IndexSpec{Key: key}); err != nil {
				b.Fatal(err)
			}
			docs := make([]bsoncore.Document, per)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for i := 0; i < b.N; i += per {
				for j := range docs {
					n++
					docs[j], _ = bson.Marshal(bson.D{{Key: "_id", Value: n}, {Key: "a", Value: n % 1000}, {Key: "s", Value: "0123456789abcdef"}})
				}
				if _, err := e.Insert(ctx, "db", "c", docs, WriteOptions{Ordered: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInsertBulk measures the recent seed's load through the engine:
// insertMany batches of 10,000 small documents {_id: ObjectId, cat, ts}
// into a collection with only the _id index (committed by ingestion),
// documents encoded before the timer.
func BenchmarkInsertBulk(b *testing.B) {
	const per = 10000
	e, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	batches := make([][]bsoncore.Document, (b.N+per-1)/per)
	t0 := time.Unix(1700000000, 0)
	n := 0
	for i := range batches {
		batches[i] = make([]bsoncore.Document, per)
		for j := range batches[i] {
			n++
			batches[i][j], _ = bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "cat", Value: int32(n % 100)}, {Key: "ts", Value: bson.NewDateTimeFromTime(t0.Add(time.Duration(n) * time.Millisecond))}})
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for _, docs := range batches {
		if _, err := e.Insert(ctx, "db", "c", docs, WriteOptions{Ordered: false, ValidBSON: true, IDFirst: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertBulkWrap is BenchmarkInsertBulk with the ObjectIds of
// one second whose counter wraps halfway (the Go driver's counter starts
// anywhere): the second half's _ids fall below the highest so far, each
// between two existing ones, and need the index probe's gaps
// (storage.IndexProbe) to be checked without a seek each.
func BenchmarkInsertBulkWrap(b *testing.B) {
	const per = 10000
	e, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	batches := make([][]bsoncore.Document, (b.N+per-1)/per)
	ts := bson.NewDateTimeFromTime(time.Unix(1700000000, 0))
	counter := uint32(1<<24 - len(batches)*per/2)
	for i := range batches {
		batches[i] = make([]bsoncore.Document, per)
		for j := range batches[i] {
			var id bson.ObjectID
			copy(id[:], []byte{0x65, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5})
			id[9], id[10], id[11] = byte(counter>>16), byte(counter>>8), byte(counter)
			counter = (counter + 1) % (1 << 24)
			batches[i][j], _ = bson.Marshal(bson.D{{Key: "_id", Value: id}, {Key: "cat", Value: int32(j % 100)}, {Key: "ts", Value: ts}})
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for _, docs := range batches {
		if _, err := e.Insert(ctx, "db", "c", docs, WriteOptions{Ordered: false, ValidBSON: true, IDFirst: true}); err != nil {
			b.Fatal(err)
		}
	}
}
