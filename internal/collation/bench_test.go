package collation

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkKey measures a sort key of a short mixed-case string with
// x/text's key as it is (caseFirst "off") and with the case part Lode
// builds (caseFirst "upper", caseLevel at strength 1).
func BenchmarkKey(b *testing.B) {
	s := []byte("Hanselmann Crème Brûlée 42")
	for _, c := range []struct {
		name string
		d    bson.D
	}{
		{"off", en()},
		{"upper", en(upper)},
		{"caseLevel1", en(strength(1), caseLvl)},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec, err := Parse(func() []byte { r, _ := bson.Marshal(c.d); return r }())
			if err != nil {
				b.Fatal(err)
			}
			col := New(spec)
			var dst []byte
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dst = col.Key(dst[:0], s)
			}
		})
	}
}
