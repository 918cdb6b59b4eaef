package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSortedLoad sorts and ingests index-like keys: a shared
// prefix, a value, a rising record id. "paths" has 1,000 distinct values
// of 30 bytes (the eventlog's {path: 1}), "random" a distinct 8-byte
// value per key (its {time: 1}), "compound" 200,000 distinct values under
// five names, whose keys tie on their first sixteen bytes and more (a
// {metadata.key, metadata.value} entry), too many to group.
func BenchmarkSortedLoad(b *testing.B) {
	const n = 1 << 20
	paths := make([][]byte, 1000)
	for i := range paths {
		paths[i] = []byte(fmt.Sprintf("/site/section-%03d/page-%06d.html", i%37, i))
	}
	values := make([][]byte, 200000)
	for i := range values {
		names := []string{"Camera model", "Flash", "Exposure time", "Lens", "Software"}
		values[i] = []byte(fmt.Sprintf("<%s\x00<%s value %05d\x00", names[i%len(names)], names[i%len(names)], i))
	}
	for _, kind := range []string{"paths", "random", "compound"} {
		b.Run(kind, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			keys := make([][]byte, n)
			for i := range keys {
				k := []byte{0x3c}
				switch kind {
				case "paths":
					k = append(k, paths[rng.IntN(len(paths))]...)
				case "compound":
					k = append(k, values[rng.IntN(len(values))]...)
				default:
					k = binary.BigEndian.AppendUint64(k, rng.Uint64())
				}
				keys[i] = append(k, 4)
			}
			db, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				l := db.NewIndexLoad(uint64(10+it), nil)
				l.SizeHint(n)
				for i, k := range keys {
					if err := l.Add(k, RecordID(i+1), nil, 0); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := l.Finish(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
		})
	}
}
