package storage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
)

// BenchmarkKeyDictAdd measures the dictionary's part of an index build
// over an event log's paths: a thousand distinct keystrings in random
// order, each added with the next record id (what a {path: 1} build
// adds per document, without the scan, key extraction or output).
func BenchmarkKeyDictAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([][]byte, 1000)
	for i := range keys {
		s := fmt.Sprintf("/site/section-%d/page-%d.html", i%37, i)
		keys[i] = keystring.AppendValue(nil, bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}, false)
	}
	order := make([]int, 1<<16)
	for i := range order {
		order[i] = r.IntN(len(keys))
	}
	b.ReportAllocs()
	d := newKeyDict(1 << 30)
	d.start(false)
	for i := 0; b.Loop(); i++ {
		if !d.add(keys[order[i&(len(order)-1)]], uint64(i+1), nil, 0) {
			b.Fatal("the dictionary gave up")
		}
	}
}

// BenchmarkKeyDictAddByHead is BenchmarkKeyDictAdd for a compound key
// grouped on its first field, as a {host: 1, time: 1} build adds it:
// fifty hosts in random order, each entry the next time after its host's
// head, with the next record id. Its B/op is mostly the groups' slices
// growing.
func BenchmarkKeyDictAddByHead(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	heads := make([][]byte, 50)
	for i := range heads {
		heads[i] = keystring.AppendValue(nil, bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, fmt.Sprintf("host-%02d.example.net", i))}, false)
	}
	order := make([]int, 1<<16)
	for i := range order {
		order[i] = r.IntN(len(heads))
	}
	ks := make([]byte, 0, 64)
	b.ReportAllocs()
	d := newKeyDict(1 << 30)
	d.start(true)
	for i := 0; b.Loop(); i++ {
		h := heads[order[i&(len(order)-1)]]
		ks = append(ks[:0], h...)
		ks = keystring.AppendValue(ks, bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, int64(1700000000000+i))}, false)
		if !d.add(ks, uint64(i+1), nil, len(h)) {
			b.Fatal("the dictionary gave up")
		}
	}
}
