package storage

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkRecordScan reads 1M event-like records (an ObjectId, a date,
// a host, a path: about 90 bytes) committed by ingestion, as a load
// leaves them: "cold" is a store's first scan of them (an index build
// right after the load: every block read from the file and decompressed),
// "warm" a scan with the blocks cached, "point" reads of records at
// random (FETCH after an index scan). The figure to compare is ns/rec;
// the block size (tableBlockSize) decides most of the cold scan's cost.
func BenchmarkRecordScan(b *testing.B) {
	const n = 1 << 20
	dir := b.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for rid := RecordID(1); rid <= n; {
		bt := db.NewIngestBatch(2 << 20)
		for i := 0; i < 10000 && rid <= n; i++ {
			doc := bsoncore.NewDocumentBuilder().
				AppendObjectID("_id", [12]byte{byte(rid >> 16), byte(rid >> 8), byte(rid)}).
				AppendDateTime("time", int64(rid)).
				AppendString("host", fmt.Sprintf("10.0.0.%d", rid%50)).
				AppendString("path", fmt.Sprintf("/site/section%02d/page%04d.html", rid%37, rid%1000)).Build()
			if err := SetRecord(bt, 7, rid, doc); err != nil {
				b.Fatal(err)
			}
			rid++
		}
		if _, err := db.Commit(bt); err != nil {
			b.Fatal(err)
		}
	}
	scan := func(b *testing.B, db *DB) {
		c, err := NewRecordCursor(db.Reader(), 7, false)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		k := 0
		for _, _, ok := c.Next(); ok; _, _, ok = c.Next() {
			k++
		}
		if k != n {
			b.Fatalf("scanned %d records, want %d", k, n)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for it := 0; it < b.N; it++ {
			b.StopTimer()
			db.Close() // a fresh block cache
			if db, err = Open(dir, Options{}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			scan(b, db)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/rec")
	})
	b.Run("warm", func(b *testing.B) {
		scan(b, db)
		b.ResetTimer()
		for it := 0; it < b.N; it++ {
			scan(b, db)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/rec")
	})
	b.Run("point", func(b *testing.B) {
		scan(b, db)
		c, err := NewRecordCursor(db.Reader(), 7, false)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		x := uint64(12345)
		b.ResetTimer()
		for it := 0; it < b.N; it++ {
			x = x*6364136223846793005 + 1442695040888963407 // a 64-bit LCG
			if _, found, err := c.SeekExact(RecordID(x>>44) + 1); !found || err != nil {
				b.Fatalf("record %d: found %v, %v", x>>44+1, found, err)
			}
		}
	})
	db.Close()
}
