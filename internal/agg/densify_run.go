package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/keystring"
)

// densifyStage is $_internalDensify, the streaming half of $densify; its
// input is sorted by the partition fields (unless the bounds are "full")
// and the field.
//
// Each partition keeps the last value of its sequence of steps that the
// output covers. The sequence starts at the first value of the partition
// ("partition"), at the smallest value of all ("full") or at the lower
// bound (explicit bounds), and goes up by step (by step units for
// dates, each step added to the previous value as $dateAdd does). A
// document below the next value passes through, one on it advances the
// sequence, one above it first brings the documents of the values in
// between (below the upper bound, which explicit bounds exclude).
// Documents whose field is null or missing pass through untouched. At
// the end, "full" fills every partition up to the largest value seen
// (included) and explicit bounds fill each partition up to the upper
// bound (excluded); an unpartitioned explicit range is filled even when
// no document has the field. Generated documents hold the partition
// fields and the field only.
type densifyStage struct {
	*densifySpec
	// coll, when not nil, is the pipeline's collation: partition values
	// equal under it are one partition (the first value met is the one
	// generated documents carry).
	coll *collation.Collator
}

func (s *densifyStage) name() string { return "$_internalDensify" }

func (s *densifyStage) spec() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendDocument("$_internalDensify", s.serialize()).Build()
}

// densifyValue is a number or a date.
type densifyValue struct {
	num    bsoncore.Value
	ms     int64
	isDate bool
}

func (v densifyValue) value() bsoncore.Value {
	if v.isDate {
		return expr.Date(v.ms)
	}
	return v.num
}

func (v densifyValue) cmp(w densifyValue) int {
	if v.isDate {
		switch {
		case v.ms < w.ms:
			return -1
		case v.ms > w.ms:
			return 1
		}
		return 0
	}
	return bsonutil.Compare(v.num, w.num)
}

func (s *densifySpec) inc(v densifyValue) (densifyValue, error) {
	if v.isDate {
		ms, err := expr.AddDateUnits(v.ms, s.unit, s.stepInt)
		return densifyValue{isDate: true, ms: ms}, err
	}
	return densifyValue{num: expr.NumAdd(v.num, s.step)}, nil
}

// densifyPart is one partition's state.
type densifyPart struct {
	include bsoncore.Document // the partition fields, for generated documents
	started bool              // last is set
	last    densifyValue
}

// densifyRun is one execution of the stage.
type densifyRun struct {
	s     *densifyStage
	rc    *runCtx
	in    Iterator
	parts map[string]*densifyPart
	order []*densifyPart
	mem   int64
	// gmin and gmax are the smallest and largest values seen ("full").
	gmin, gmax densifyValue
	seen       bool
	generated  int64
	maxDocs    int64
	memLimit   int64

	// The generator: documents from gen.next while below genEnd (or up
	// to it when genIncl), then pending.
	gen      *densifyPart
	genNext  densifyValue
	genEnd   densifyValue
	genIncl  bool
	pending  bsoncore.Document
	pendingV densifyValue
	// done is set once the input is exhausted; final indexes the
	// partitions left to fill.
	done  bool
	final int
}

func (s *densifyStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	p := rc.pc.params()
	r := &densifyRun{s: s, rc: rc, in: in, parts: map[string]*densifyPart{},
		maxDocs: p.DensifyMaxDocs.Load(), memLimit: p.DensifyMaxBytes.Load()}
	if len(s.partitions) == 0 && s.bounds == densifyExplicit {
		// The whole input is one partition, filled even when empty.
		if _, err := r.partition(nil); err != nil {
			return nil, err
		}
	}
	return &funcIter{next: r.next, close: in.Close}, nil
}

// partition returns the partition of d (nil: the only one), creating it.
func (r *densifyRun) partition(d bsoncore.Document) (*densifyPart, error) {
	var key []byte
	include := emptyDoc
	for _, p := range r.s.partitions {
		v := lookupPath(d, p)
		if v.Type == 0 {
			key = append(key, 0)
			continue
		}
		key = keystring.AppendValue(append(key, 1), r.s.coll.Transform(v), false)
		include = setPath(include, p, v)
	}
	if p, ok := r.parts[string(key)]; ok {
		return p, nil
	}
	p := &densifyPart{include: include}
	r.parts[string(key)] = p
	r.order = append(r.order, p)
	r.mem += int64(len(key)+len(include)) + docOverhead
	if r.mem > r.memLimit {
		return nil, errs.New(errs.Location6007200, "$densify exceeded memory limit of %d", r.memLimit)
	}
	return p, nil
}

// value reads and checks the field of d; ok is false when it is null or
// missing.
func (r *densifyRun) value(d bsoncore.Document) (densifyValue, bool, error) {
	v := lookupPath(d, r.s.field)
	if expr.IsNullish(v) {
		return densifyValue{}, false, nil
	}
	isNum := bsonutil.IsNumber(v.Type)
	if !isNum && v.Type != bsoncore.TypeDateTime {
		return densifyValue{}, false, errs.New(errs.Location5733201, "Densify field type must be numeric or a date")
	}
	hasUnit := r.s.unit != ""
	if isNum && hasUnit {
		return densifyValue{}, false, errs.New(errs.Location6053600, "Encountered numeric densify value in collection when step has a date unit.")
	}
	if !isNum && !hasUnit {
		return densifyValue{}, false, errs.New(errs.Location6053600, "Encountered date densify value in collection when step does not have a date unit.")
	}
	if isNum {
		return densifyValue{num: v}, true, nil
	}
	return densifyValue{isDate: true, ms: v.DateTime()}, true, nil
}

func (r *densifyRun) next() (bsoncore.Document, error) {
	for {
		if r.gen != nil {
			d, err := r.generate()
			if d != nil || err != nil {
				return d, err
			}
		}
		if r.pending != nil {
			d := r.pending
			r.pending = nil
			return d, nil
		}
		if r.done {
			if !r.fillNext() {
				return nil, nil
			}
			continue
		}
		d, err := nextChecked(r.rc.ctx, r.in, r.generated)
		if err != nil {
			return nil, err
		}
		if d == nil {
			r.done = true
			continue
		}
		out, err := r.take(d)
		if err != nil || out != nil {
			return out, err
		}
	}
}

// take handles one input document: it returns it when nothing comes
// before it, or sets up the generator and holds it as pending.
func (r *densifyRun) take(d bsoncore.Document) (bsoncore.Document, error) {
	v, ok, err := r.value(d)
	if err != nil || !ok {
		return d, err
	}
	s := r.s
	if s.bounds == densifyFull {
		if !r.seen {
			r.gmin, r.seen = v, true
		}
		r.gmax = v
	}
	p, err := r.partition(d)
	if err != nil {
		return nil, err
	}
	var next densifyValue
	switch {
	case p.started:
		if next, err = s.inc(p.last); err != nil {
			return nil, err
		}
	case s.bounds == densifyPartition:
		p.last, p.started = v, true
		return d, nil
	case s.bounds == densifyFull:
		next = r.gmin
	default:
		next = s.lo
	}
	end, incl := v, false
	if s.bounds == densifyExplicit {
		if v.cmp(s.lo) < 0 || next.cmp(s.hi) >= 0 {
			return d, nil
		}
		if s.hi.cmp(v) < 0 {
			end = s.hi
		}
	}
	switch c := v.cmp(next); {
	case c < 0:
		return d, nil
	case c == 0:
		p.last, p.started = v, true
		return d, nil
	}
	r.gen, r.genNext, r.genEnd, r.genIncl = p, next, end, incl
	r.pending, r.pendingV = d, v
	return nil, nil
}

// generate returns the generator's next document, or nil when it is done
// (then the partition's sequence moves onto the pending document when it
// lies on it).
func (r *densifyRun) generate() (bsoncore.Document, error) {
	p := r.gen
	c := r.genNext.cmp(r.genEnd)
	if c > 0 || (c == 0 && !r.genIncl) {
		r.gen = nil
		if r.pending != nil && p.started {
			n, err := r.s.inc(p.last)
			if err != nil {
				return nil, err
			}
			if n.cmp(r.pendingV) == 0 {
				p.last = r.pendingV
			}
		}
		return nil, nil
	}
	r.generated++
	if r.generated > r.maxDocs {
		return nil, errs.New(errs.Location5897900, "Generated %d documents in $densify, which is over the limit of %d. Increase the 'internalQueryMaxAllowedDensifyDocs' parameter to allow more generated documents", r.generated, r.maxDocs)
	}
	if r.generated&1023 == 0 {
		if err := r.rc.ctx.Err(); err != nil {
			return nil, err
		}
	}
	v := r.genNext
	p.last, p.started = v, true
	n, err := r.s.inc(v)
	if err != nil {
		return nil, err
	}
	r.genNext = n
	return setPath(p.include, r.s.field, v.value()), nil
}

// fillNext sets up the generator for the next partition to fill at the
// end of the input; false when none is left.
func (r *densifyRun) fillNext() bool {
	s := r.s
	if s.bounds == densifyPartition || (s.bounds == densifyFull && !r.seen) {
		return false
	}
	for r.final < len(r.order) {
		p := r.order[r.final]
		r.final++
		next := r.gmin
		if s.bounds == densifyExplicit {
			next = s.lo
		}
		if p.started {
			n, err := s.inc(p.last)
			if err != nil {
				continue
			}
			next = n
		}
		r.gen, r.genNext = p, next
		if s.bounds == densifyFull {
			r.genEnd, r.genIncl = r.gmax, true
		} else {
			r.genEnd, r.genIncl = s.hi, false
		}
		return true
	}
	return false
}
