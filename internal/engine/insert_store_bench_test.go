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
	t0 := time.Unix(1700000000, 0)
	benchInsertBatches(b, func(n int) []byte {
		doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "cat", Value: int32(n % 100)}, {Key: "ts", Value: bson.NewDateTimeFromTime(t0.Add(time.Duration(n) * time.Millisecond))}})
		return doc
	})
}

// BenchmarkInsertBulkWrap is BenchmarkInsertBulk with the ObjectIds of
// one second whose counter wraps halfway (the Go driver's counter starts
// anywhere): the second half's _ids fall below the highest so far, each
// between two existing ones, and need the index probe's gaps
// (storage.IndexProbe) to be checked without a seek each.
func BenchmarkInsertBulkWrap(b *testing.B) {
	ts := bson.NewDateTimeFromTime(time.Unix(1700000000, 0))
	start := uint32(1<<24 - b.N/2)
	benchInsertBatches(b, func(n int) []byte {
		counter := (start + uint32(n)) % (1 << 24)
		var id bson.ObjectID
		copy(id[:], []byte{0x65, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5})
		id[9], id[10], id[11] = byte(counter>>16), byte(counter>>8), byte(counter)
		doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: id}, {Key: "cat", Value: int32(n % 100)}, {Key: "ts", Value: ts}})
		return doc
	})
}

// benchInsertBatches inserts b.N documents, doc(0) to doc(b.N-1) made
// before the timer, in insertMany batches of 10,000 into a new engine.
func benchInsertBatches(b *testing.B, doc func(n int) []byte) {
	const per = 10000
	e, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	var batches [][]bsoncore.Document
	for n := 0; n < b.N; n += per {
		batch := make([]bsoncore.Document, 0, per)
		for i := n; i < n+per && i < b.N; i++ {
			batch = append(batch, doc(i))
		}
		batches = append(batches, batch)
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
