package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
)

// TestGranularityRounding checks the rounders at the edges of a decade
// (0.8 in E6 rounds up to the next decade's first value, 1, and down to
// the previous decade's last, 0.68) and the powers of two by type: an
// integer rounds to an integer, a power of two down to the one below it,
// a fraction to a double.
func TestGranularityRounding(t *testing.T) {
	e6, _ := parseGranularity(expr.String("E6"))
	p2, _ := parseGranularity(expr.String("POWERSOF2"))
	for _, c := range []struct {
		g        *granularity
		v        bsoncore.Value
		up, down string
	}{
		{e6, expr.Double(0.8), `{"$numberDouble":"1.0"}`, `{"$numberDouble":"0.68"}`},
		{e6, expr.Int32(47), `{"$numberDouble":"68.0"}`, `{"$numberDouble":"33.0"}`},
		{e6, expr.Int32(0), `{"$numberInt":"0"}`, `{"$numberInt":"0"}`},
		{e6, expr.Double(1000), `{"$numberDouble":"1500.0"}`, `{"$numberDouble":"680.0"}`},
		{p2, expr.Int32(64), `{"$numberInt":"128"}`, `{"$numberInt":"32"}`},
		{p2, expr.Int32(65), `{"$numberInt":"128"}`, `{"$numberInt":"64"}`},
		{p2, expr.Int64(1 << 40), `{"$numberLong":"2199023255552"}`, `{"$numberLong":"549755813888"}`},
		{p2, expr.Double(0.3), `{"$numberDouble":"0.5"}`, `{"$numberDouble":"0.25"}`},
		{p2, expr.Double(3.5), `{"$numberInt":"4"}`, `{"$numberInt":"2"}`},
	} {
		up, down := c.g.roundUp(c.v).String(), c.g.roundDown(c.v).String()
		if up != c.up || down != c.down {
			t.Errorf("%s %s: up %s down %s, want %s and %s", c.g.name, c.v, up, down, c.up, c.down)
		}
	}
}
