package keystring

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzCompare derives two values from the fuzzer's bytes and checks that
// their encodings order as the oracle does in both directions, as
// two-field compound keys, and that they decode back.
func FuzzCompare(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{7, 3, 7, 4, 2, 2, 1, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add(bytes.Repeat([]byte{6, 1, 20, 2}, 8))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := gen{&byteSource{data}}
		a, b := g.pair(3)
		c, d := g.pair(1)
		checkPair(t, a, b)
		checkCompound(t, a, c, b, d, len(data)&1 == 1, len(data)&2 == 2)
		roundTrip(t, []bsoncore.Value{a, c}, []bool{len(data)&1 == 1, false})
	})
}
