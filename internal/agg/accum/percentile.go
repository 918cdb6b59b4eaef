package accum

import (
	"math"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// percentileAcc implements the $median and $percentile accumulators with
// method "approximate": numeric inputs (decimals as doubles) go into a
// t-digest, every other value, and NaN, is ignored.
type percentileAcc struct {
	spec *expr.PercentileSpec
	td   *tdigest
}

func newPercentileAcc(f *Factory) Accumulator {
	return &percentileAcc{spec: f.pct, td: newTDigest()}
}

func (a *percentileAcc) Add(v bsoncore.Value) error {
	if x, ok := expr.PercentileInput(v); ok {
		a.td.add(x)
	}
	return nil
}

func (a *percentileAcc) Result() (bsoncore.Value, error) {
	var out []float64
	if !a.td.empty() {
		out = make([]float64, len(a.spec.Ps))
		for i, p := range a.spec.Ps {
			out[i], _ = a.td.percentile(p)
		}
	}
	return a.spec.Result(out), nil
}

func (a *percentileAcc) MemUsage() int { return a.td.memUsage() }

// Partial implements Accumulator: the digest as {c: [w, m, w, m, ...],
// b: [buffered values], n, ni, pi, lo, hi}.
func (a *percentileAcc) Partial() (bsoncore.Value, error) {
	t := a.td
	cs := expr.NewArrayBuilder()
	for _, c := range t.centroids {
		cs.Append(expr.Double(c.w))
		cs.Append(expr.Double(c.m))
	}
	bs := expr.NewArrayBuilder()
	for _, v := range t.buf {
		bs.Append(expr.Double(v))
	}
	d := bsoncore.NewDocumentBuilder().
		AppendArray("c", cs.Value().Data).
		AppendArray("b", bs.Value().Data).
		AppendInt64("n", t.n).
		AppendInt64("ni", t.negInf).
		AppendInt64("pi", t.posInf).
		AppendDouble("lo", t.min).
		AppendDouble("hi", t.max).
		Build()
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}, nil
}

// Merge implements Accumulator. A state that holds only buffered values
// is replayed input by input, as if those inputs had come here; a state
// with centroids is merged digest to digest.
func (a *percentileAcc) Merge(p bsoncore.Value) error {
	d, err := partialDoc(a.spec.Name(), p)
	if err != nil {
		return err
	}
	o := &tdigest{
		n:      d.Lookup("n").Int64(),
		negInf: d.Lookup("ni").Int64(),
		posInf: d.Lookup("pi").Int64(),
		min:    d.Lookup("lo").Double(),
		max:    d.Lookup("hi").Double(),
	}
	cs := expr.ArrayValues(d.Lookup("c"))
	if len(cs)%2 != 0 {
		return errs.New(errs.InternalError, "%s: malformed partial state", a.spec.Name())
	}
	for i := 0; i < len(cs); i += 2 {
		o.centroids = append(o.centroids, centroid{w: cs[i].Double(), m: cs[i+1].Double()})
	}
	for _, v := range expr.ArrayValues(d.Lookup("b")) {
		if len(o.centroids) == 0 {
			a.td.add(v.Double())
		} else {
			o.buf = append(o.buf, v.Double())
		}
	}
	if len(o.centroids) == 0 {
		a.td.negInf += o.negInf
		a.td.posInf += o.posInf
		return nil
	}
	if math.IsNaN(o.min) || math.IsNaN(o.max) {
		return errs.New(errs.InternalError, "%s: malformed partial state", a.spec.Name())
	}
	a.td.mergeDigest(o)
	return nil
}
