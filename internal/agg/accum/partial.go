package accum

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// This file holds the partial states of the accumulators: what $group
// writes to disk when it spills, and how states read back are merged.

// partialDoc reads a state document, failing on any other type.
func partialDoc(name string, p bsoncore.Value) (bsoncore.Document, error) {
	d, ok := p.DocumentOK()
	if !ok {
		return nil, errs.New(errs.InternalError, "%s: partial state is %s, not a document", name, bsonutil.TypeName(p.Type))
	}
	return d, nil
}

// partialArray reads a state array, failing on any other type.
func partialArray(name string, p bsoncore.Value) ([]bsoncore.Value, error) {
	if p.Type != bsoncore.TypeArray {
		return nil, errs.New(errs.InternalError, "%s: partial state is %s, not an array", name, bsonutil.TypeName(p.Type))
	}
	return expr.ArrayValues(p), nil
}

// kindRank orders the result kinds of $sum: a merge keeps the wider one.
func kindRank(t bsoncore.Type) int {
	switch t {
	case bsoncore.TypeInt32:
		return 1
	case bsoncore.TypeInt64:
		return 2
	case bsoncore.TypeDouble:
		return 3
	case bsoncore.TypeDecimal128:
		return 4
	}
	return 0
}

// Partial implements Accumulator.
func (a *sumAcc) Partial() (bsoncore.Value, error) {
	b := bsoncore.NewDocumentBuilder().
		AppendInt64("n", a.Count).
		AppendInt32("k", int32(a.Kind)).
		AppendInt64("i", a.I).
		AppendBoolean("o", a.Overflow).
		AppendDouble("f", a.F).
		AppendDouble("c", a.C)
	if a.HasDec {
		b.AppendValue("d", a.Dec)
	}
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: b.Build()}, nil
}

// Merge implements Accumulator.
func (a *sumAcc) Merge(p bsoncore.Value) error {
	d, err := partialDoc("$sum", p)
	if err != nil {
		return err
	}
	o := sumAcc{Sum: expr.Sum{Count: d.Lookup("n").Int64(), Kind: bsoncore.Type(d.Lookup("k").Int32()), I: d.Lookup("i").Int64(),
		Overflow: d.Lookup("o").Boolean(), F: d.Lookup("f").Double(), C: d.Lookup("c").Double()}}
	if dv, err := d.LookupErr("d"); err == nil {
		o.Dec, o.HasDec = dv, true
	}
	a.merge(&o)
	return nil
}

// MergeAcc merges o, another accumulator of the same $group's
// parallel part, into a without the partial document Merge reads: the
// fold of a parallel $group merges one per group and part. It reports
// false when o is not a sumAcc.
func (a *sumAcc) MergeAcc(o Accumulator) bool {
	b, ok := o.(*sumAcc)
	if !ok || b.avg != a.avg {
		return false
	}
	a.merge(b)
	return true
}

// merge adds the state of o into a.
func (a *sumAcc) merge(o *sumAcc) {
	if o.Count == 0 {
		return
	}
	a.Count += o.Count
	if kindRank(o.Kind) > kindRank(a.Kind) {
		a.Kind = o.Kind
	}
	i, overflow := o.I, o.Overflow
	if overflow && !a.Overflow {
		a.Overflow = true
		a.Kahan(float64(a.I))
		a.I = 0
	}
	if a.Overflow {
		a.Kahan(float64(i))
	} else {
		s := a.I + i
		if (a.I >= 0) == (i >= 0) && (s >= 0) != (i >= 0) {
			a.Overflow = true
			a.Kahan(float64(a.I) + float64(i))
			a.I = 0
		} else {
			a.I = s
		}
	}
	// The other side's Kahan sum is f with compensation c (true sum f-c).
	a.Kahan(o.F)
	a.Kahan(-o.C)
	if o.HasDec {
		if !a.HasDec {
			a.Dec, a.HasDec = copyVal(o.Dec), true
		} else {
			a.Dec = expr.NumAdd(a.Dec, o.Dec)
		}
	}
}

// Partial implements Accumulator: the current extreme, or null.
func (a *minMaxAcc) Partial() (bsoncore.Value, error) {
	if a.v.Type == 0 {
		return expr.Null, nil
	}
	return a.v, nil
}

// Merge implements Accumulator.
func (a *minMaxAcc) Merge(p bsoncore.Value) error { return a.Add(p) }

// Partial implements Accumulator: {s: seen, v: value}.
func (a *firstLastAcc) Partial() (bsoncore.Value, error) {
	b := bsoncore.NewDocumentBuilder().AppendBoolean("s", a.seen)
	if a.seen {
		b.AppendValue("v", a.v)
	}
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: b.Build()}, nil
}

// Merge implements Accumulator.
func (a *firstLastAcc) Merge(p bsoncore.Value) error {
	d, err := partialDoc("$first/$last", p)
	if err != nil {
		return err
	}
	if !d.Lookup("s").Boolean() {
		return nil
	}
	return a.Add(d.Lookup("v"))
}

// Partial implements Accumulator: the values held, in order.
func (a *pushAcc) Partial() (bsoncore.Value, error) { return a.Result() }

// Merge implements Accumulator.
func (a *pushAcc) Merge(p bsoncore.Value) error {
	vals, err := partialArray("$push", p)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if err := a.Add(v); err != nil {
			return err
		}
	}
	return nil
}

// checkLimit fails once the accumulator holds more than its bound
// (Factory.MaxBytes): its state cannot be spilled in parts.
func (a *pushAcc) checkLimit() error {
	name, limit := "$push", a.limit
	if a.set {
		name = "$addToSet"
	}
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if int64(a.mem) > limit {
		return errs.New(errs.ExceededMemoryLimit, "%s used too much memory and cannot spill to disk. Memory limit: %d bytes", name, limit)
	}
	return nil
}

// Partial implements Accumulator: {n, m: mean, q: sum of squared
// deviations}.
func (a *stdDevAcc) Partial() (bsoncore.Value, error) {
	d := bsoncore.NewDocumentBuilder().AppendInt64("n", a.n).AppendDouble("m", a.mean).AppendDouble("q", a.m2).Build()
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}, nil
}

// Merge implements Accumulator with the pairwise update of Chan et al.
func (a *stdDevAcc) Merge(p bsoncore.Value) error {
	d, err := partialDoc("$stdDev", p)
	if err != nil {
		return err
	}
	nb := d.Lookup("n").Int64()
	if nb == 0 {
		return nil
	}
	mb, qb := d.Lookup("m").Double(), d.Lookup("q").Double()
	if a.n == 0 {
		a.n, a.mean, a.m2 = nb, mb, qb
		return nil
	}
	n := a.n + nb
	delta := mb - a.mean
	a.mean += delta * float64(nb) / float64(n)
	a.m2 += qb + delta*delta*float64(a.n)*float64(nb)/float64(n)
	a.n = n
	if math.IsNaN(a.m2) || math.IsInf(a.m2, 0) {
		a.m2 = math.Inf(1)
	}
	return nil
}

// Partial implements Accumulator: the document merged so far.
func (a *mergeAcc) Partial() (bsoncore.Value, error) { return a.Result() }

// Merge implements Accumulator.
func (a *mergeAcc) Merge(p bsoncore.Value) error { return a.Add(p) }

// mergeEach adds every element of an array state in order.
func mergeEach(name string, p bsoncore.Value, add func(bsoncore.Value) error) error {
	vals, err := partialArray(name, p)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if err := add(v); err != nil {
			return err
		}
	}
	return nil
}

// Partial implements Accumulator: the values held, in order.
func (a *firstNAcc) Partial() (bsoncore.Value, error) { return a.Result() }

// Merge implements Accumulator.
func (a *firstNAcc) Merge(p bsoncore.Value) error { return mergeEach("$firstN", p, a.Add) }

// Partial implements Accumulator: the last values, oldest first.
func (a *lastNAcc) Partial() (bsoncore.Value, error) { return a.Result() }

// Merge implements Accumulator.
func (a *lastNAcc) Merge(p bsoncore.Value) error { return mergeEach("$lastN", p, a.Add) }

// Partial implements Accumulator: the values held, best first.
func (a *extremeNAcc) Partial() (bsoncore.Value, error) { return a.Result() }

// Merge implements Accumulator.
func (a *extremeNAcc) Merge(p bsoncore.Value) error { return mergeEach("$minN/$maxN", p, a.Add) }

// Partial implements Accumulator: the items held ([sortKey..., output]),
// in sortBy's order.
func (a *topAcc) Partial() (bsoncore.Value, error) {
	out := make([]bsoncore.Value, len(a.items))
	for i, it := range a.items {
		out[i] = expr.Array(it...)
	}
	return expr.Array(out...), nil
}

// Merge implements Accumulator.
func (a *topAcc) Merge(p bsoncore.Value) error { return mergeEach("$top/$bottom", p, a.Add) }
