package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg/window"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/membudget"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$_internalSetWindowFields", stageDef{parse: parseInternalSetWindowFields, access: noAccess, sources: noSources, where: anywhere, explain: windowExplain, shape: shapeExpr})
}

// windowExplain appends the execution figures of
// $_internalSetWindowFields.
func windowExplain(b *bsoncore.DocumentBuilder, st *stageStats, _ int64) {
	fb := bsoncore.NewDocumentBuilder()
	for i, f := range st.window.fields {
		fb.AppendInt64(f, st.window.funcs[i])
	}
	b.AppendDocument("maxFunctionMemoryUsageBytes", fb.Build()).
		AppendInt64("maxTotalMemoryUsageBytes", st.window.total).
		AppendBoolean("usedDisk", st.spill.runs > 0)
}

// windowStage is $_internalSetWindowFields: it reads documents sorted by
// (partition key, sortBy) and streams them out partition by partition
// with each output field set to its window function's value. It holds
// only the documents some window still needs (partBuf) and each
// function's state.
type windowStage struct {
	raw     bsoncore.Value
	partBy  expr.Expr // nil: one partition
	partRaw bsoncore.Value
	sortBy  *window.SortInfo
	fields  []string
	specs   []*window.Spec
	// tree checks the output paths at parse time; each run builds its own
	// (outputTree) over its values.
	tree *pnode
	// coll, when not nil, is the pipeline's collation: partition keys
	// equal under it are one partition.
	coll *collation.Collator
}

// parseInternalSetWindowFields parses $_internalSetWindowFields, which
// expects its input already sorted (mongod accepts it from users too).
func parseInternalSetWindowFields(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "the $_internalSetWindowFields stage specification must be an object, found %s", bsonutil.TypeName(v.Type))
	}
	pb, hasPart := lookupDoc(d, "partitionBy")
	ss, err := parseSetWindowFields(docValue(removeField(d, "partitionBy")), pc)
	if err != nil {
		return nil, err
	}
	var w *windowStage
	for _, s := range ss {
		if ws, ok := s.(*windowStage); ok {
			w = ws
		}
	}
	w.raw = v
	if hasPart {
		if w.partBy, err = expr.Parse(pb, pc.Expr); err != nil {
			return nil, err
		}
		w.partRaw = pb
	}
	return []stage{w}, nil
}

func lookupDoc(d bsoncore.Document, k string) (bsoncore.Value, bool) {
	v, err := d.LookupErr(k)
	return v, err == nil
}

func removeField(d bsoncore.Document, k string) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	elems, _ := d.Elements()
	for _, el := range elems {
		if el.Key() != k {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return b.Build()
}

func (w *windowStage) name() string { return "$_internalSetWindowFields" }

// spec renders the stage as mongod 7.0's explain does.
func (w *windowStage) spec() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if w.partRaw.Type != 0 {
		b.AppendValue("partitionBy", w.partRaw)
	}
	if w.sortBy != nil {
		b.AppendDocument("sortBy", w.sortBy.Raw)
	}
	ob := bsoncore.NewDocumentBuilder()
	for i, f := range w.fields {
		ob.AppendDocument(f, w.specs[i].Render())
	}
	b.AppendDocument("output", ob.Build())
	return bsoncore.NewDocumentBuilder().AppendDocument("$_internalSetWindowFields", b.Build()).Build()
}

// windowMem are the memory figures explain reports for the stage, as
// mongod 7.0: each function's high-water mark and the stage's.
type windowMem struct {
	fields []string
	funcs  []int64
	total  int64
}

// outState is one output field's function and the part of the partition
// it has seen: positions [ws, we) are in its window; rs and re are a
// range window's search positions.
type outState struct {
	spec   *window.Spec
	f      window.Func
	ws, we int64
	rs, re int64
	// peak is the most the function held.
	peak int64
}

// windowRun is one execution of the stage.
type windowRun struct {
	w   *windowStage
	rc  *runCtx
	in  Iterator
	buf partBuf
	// pending is the first document of the next partition, read while
	// looking for the end of the current one.
	pending         bsoncore.Document
	pendKey, curKey bsoncore.Value
	started         bool
	done, eof       bool
	i, read         int64
	outs            []*outState
	// vals are the values of the document being output, read by tree's
	// windowSlot expressions.
	vals  []bsoncore.Value
	tree  *pnode
	limit int64
	res   membudget.Reservation
	peak  int64
}

func (w *windowStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	r := &windowRun{w: w, rc: rc, in: in, limit: rc.pc.windowMemLimit(), res: membudget.For(rc.pc.budget())}
	r.buf.dir = rc.pc.tempDir()
	r.outs = make([]*outState, len(w.specs))
	for i, s := range w.specs {
		r.outs[i] = &outState{spec: s}
	}
	r.vals = make([]bsoncore.Value, len(w.specs))
	r.tree = w.outputTree(&r.vals)
	if m := rc.winMem; m != nil {
		m.fields, m.funcs = w.fields, make([]int64, len(w.specs))
	}
	return &funcIter{next: r.next, close: r.close}, nil
}

func (r *windowRun) close() error {
	r.buf.close()
	r.res.Release()
	r.rc.pc.params().NotePeakWindowMem(r.peak)
	return r.in.Close()
}

// key evaluates a document's partition key; null and missing are one
// partition, and an array is refused as mongod does.
func (r *windowRun) key(d bsoncore.Document) (bsoncore.Value, error) {
	if r.w.partBy == nil {
		return expr.Null, nil
	}
	v, err := r.w.partBy.Eval(d, r.rc.vars)
	if err != nil {
		return bsoncore.Value{}, err
	}
	if v.Type == bsoncore.TypeArray {
		return bsoncore.Value{}, errs.New(errs.TypeMismatch, "An expression used to partition cannot evaluate to value of type array")
	}
	if v.Type == 0 || v.Type == bsoncore.TypeUndefined {
		v = expr.Null
	}
	return bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}, nil
}

func (r *windowRun) nextInput() (bsoncore.Document, bsoncore.Value, error) {
	d, err := nextChecked(r.rc.ctx, r.in, r.read)
	if err != nil || d == nil {
		return nil, bsoncore.Value{}, err
	}
	r.read++
	k, err := r.key(d)
	return d, k, err
}

// startPartition begins the next partition; false at the end of input.
func (r *windowRun) startPartition() (bool, error) {
	if r.pending == nil {
		if r.eof {
			return false, nil
		}
		d, k, err := r.nextInput()
		if err != nil {
			return false, err
		}
		if d == nil {
			r.eof = true
			return false, nil
		}
		r.pending, r.pendKey = d, k
	}
	r.buf.reset()
	r.buf.push(r.pending)
	r.curKey, r.pending = r.pendKey, nil
	r.done, r.i = false, 0
	for _, o := range r.outs {
		f, err := o.spec.New(r.rc.vars)
		if err != nil {
			return false, err
		}
		o.f, o.ws, o.we, o.rs, o.re = f, 0, 0, 0, 0
	}
	return true, r.checkMem()
}

// readMore reads one more document of the current partition; false when
// the partition has ended.
func (r *windowRun) readMore() (bool, error) {
	if r.done {
		return false, nil
	}
	d, k, err := r.nextInput()
	if err != nil {
		return false, err
	}
	if d == nil {
		r.eof, r.done = true, true
		return false, nil
	}
	if expr.CompareWith(r.w.coll, k, r.curKey) != 0 {
		r.pending, r.pendKey, r.done = d, k, true
		return false, nil
	}
	r.buf.push(d)
	return true, r.checkMem()
}

// ensure reads until the buffer reaches position n or the partition ends.
func (r *windowRun) ensure(n int64) error {
	for r.buf.len() < n && !r.done {
		if _, err := r.readMore(); err != nil {
			return err
		}
	}
	return nil
}

// checkMem enforces internalDocumentSourceSetWindowFieldsMaxMemoryBytes
// and the instance's budget: past them the buffered documents spill
// (allowDiskUse) and what the window functions hold must still fit, else
// the stage fails with mongod's 5414201.
func (r *windowRun) checkMem() error {
	mem := r.mem()
	if mem <= r.limit && (mem <= membudget.Floor || r.res.Grow(mem)) {
		return nil
	}
	if r.rc.pc.AllowDiskUse {
		n, b := r.buf.spilled, r.buf.spillBytes
		if err := r.buf.spill(); err != nil {
			return err
		}
		if sp := r.rc.spill; sp != nil && r.buf.spilled > n {
			sp.runs++
			sp.records += r.buf.spilled - n
			sp.bytes += r.buf.spillBytes - b
		}
		if c := r.rc.pc.params(); r.buf.spilled > n {
			c.Stats.SpilledRuns.Add(1)
		}
		mem = r.mem()
	}
	if mem > r.limit {
		return errs.New(errs.Location5414201, "Exceeded memory limit in DocumentSourceSetWindowFields, used %d bytes but max allowed is %d", mem, r.limit)
	}
	if mem > membudget.Floor && !r.res.Grow(mem) {
		return budgetError("$setWindowFields", r.res.Budget())
	}
	return nil
}

func (r *windowRun) mem() int64 {
	m := r.buf.mem
	for _, o := range r.outs {
		if o.f != nil {
			fm := o.f.MemUsage()
			o.peak = max(o.peak, fm)
			m += fm
		}
	}
	if m > r.peak {
		r.peak = m
	}
	if wm := r.rc.winMem; wm != nil {
		wm.total = r.peak
		for i, o := range r.outs {
			wm.funcs[i] = o.peak
		}
	}
	return m
}

func (r *windowRun) next() (bsoncore.Document, error) {
	for {
		if !r.started || (r.i >= r.buf.len() && r.done) {
			ok, err := r.startPartition()
			if err != nil || !ok {
				return nil, err
			}
			r.started = true
		}
		if err := r.ensure(r.i + 1); err != nil {
			return nil, err
		}
		if r.i < r.buf.len() {
			break
		}
	}
	cur, err := r.buf.get(r.i)
	if err != nil {
		return nil, err
	}
	for k, o := range r.outs {
		s, e, err := r.window(o, cur)
		if err != nil {
			return nil, err
		}
		if o.spec.Bounds.LoUnb {
			// Functions over an unbounded lower bound keep nothing to
			// remove (a range window only skips leading values of another
			// type, and the first of those already failed).
			s = o.ws
		}
		for ; o.we < e; o.we++ {
			d, err := r.buf.get(o.we)
			if err != nil {
				return nil, err
			}
			if err := o.f.Add(d); err != nil {
				return nil, err
			}
		}
		for ; o.ws < s; o.ws++ {
			if err := o.f.Remove(); err != nil {
				return nil, err
			}
		}
		v, err := o.f.Result(r.i)
		if err != nil {
			return nil, err
		}
		r.vals[k] = v
	}
	out, err := r.tree.setFields(cur, cur, r.rc.vars)
	if err != nil {
		return nil, err
	}
	r.i++
	keep := r.i
	for _, o := range r.outs {
		keep = min(keep, o.we)
		if o.spec.Bounds.Range {
			keep = min(keep, o.rs)
		}
	}
	r.buf.dropBefore(keep)
	if err := r.checkMem(); err != nil {
		return nil, err
	}
	return out, nil
}

// window returns the positions [s, e) of o's window for the current
// document, reading ahead as far as the window reaches.
func (r *windowRun) window(o *outState, cur bsoncore.Document) (int64, int64, error) {
	b := o.spec.Bounds
	if b.Range {
		return r.rangeWindow(o, cur)
	}
	i := r.i
	var s, e int64
	if !b.LoUnb {
		s = i + b.Lo
	}
	if b.HiUnb {
		if err := r.ensure(math.MaxInt64); err != nil {
			return 0, 0, err
		}
		e = r.buf.len()
	} else {
		e = i + b.Hi + 1
		if err := r.ensure(e); err != nil {
			return 0, 0, err
		}
	}
	n := r.buf.len()
	s, e = max(0, min(s, n)), max(0, min(e, n))
	e = max(e, s, o.we)
	s = max(s, o.ws)
	return s, e, nil
}

// rangeWindow finds the documents whose sortBy value lies within the
// bounds around the current document's.
func (r *windowRun) rangeWindow(o *outState, cur bsoncore.Document) (int64, int64, error) {
	b := o.spec.Bounds
	base := r.w.sortBy.Value(cur)
	if b.Unit != "" {
		if base.Type != bsoncore.TypeDateTime {
			return 0, 0, errs.New(errs.Location5429513, "Invalid range: Expected the sortBy field to be a Date, but it was %s", bsonutil.TypeName(base.Type))
		}
	} else {
		if base.Type == bsoncore.TypeDateTime {
			return 0, 0, errs.New(errs.Location5429413, "Invalid range: For windows that involve date or time ranges, a unit must be provided.")
		}
		if !bsonutil.IsNumber(base.Type) {
			return 0, 0, errs.New(errs.Location5429414, "Invalid range: Expected the sortBy field to be a number, but it was %s", bsonutil.TypeName(base.Type))
		}
	}
	offset := func(v bsoncore.Value) (bsoncore.Value, error) {
		if b.Unit == "" {
			return expr.NumAdd(base, v), nil
		}
		n, _ := integralValue(v)
		ms, err := expr.AddDateUnits(base.DateTime(), b.Unit, n)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return expr.Date(ms), nil
	}
	hasType := func(v bsoncore.Value) bool {
		if b.Unit != "" {
			return v.Type == bsoncore.TypeDateTime
		}
		return bsonutil.IsNumber(v.Type)
	}
	value := func(j int64) (bsoncore.Value, error) {
		d, err := r.buf.get(j)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return r.w.sortBy.Value(d), nil
	}
	// scan advances *p while ok holds for the document there, reading
	// ahead as needed.
	scan := func(p *int64, ok func(v bsoncore.Value) bool) error {
		for {
			if err := r.ensure(*p + 1); err != nil {
				return err
			}
			if *p >= r.buf.len() {
				return nil
			}
			v, err := value(*p)
			if err != nil {
				return err
			}
			if !ok(v) {
				return nil
			}
			(*p)++
		}
	}
	// The lower end: "current" is the current document itself; otherwise
	// the first document at or past the threshold (mongod's PartitionIterator
	// compares in MongoDB's value order, so nulls, which sort first, are
	// skipped, and "unbounded" starts at the first value of the window's
	// type).
	switch {
	case b.LoCurrent():
		o.rs = max(o.rs, r.i)
	case b.LoUnb:
		if err := scan(&o.rs, func(v bsoncore.Value) bool { return !hasType(v) }); err != nil {
			return 0, 0, err
		}
	default:
		lo, err := offset(b.LoV)
		if err != nil {
			return 0, 0, err
		}
		if err := scan(&o.rs, func(v bsoncore.Value) bool { return bsonutil.Compare(v, lo) < 0 }); err != nil {
			return 0, 0, err
		}
	}
	o.re = max(o.re, o.rs)
	switch {
	case b.HiCurrent():
		o.re = max(o.re, r.i+1)
	case b.HiUnb:
		if err := scan(&o.re, hasType); err != nil {
			return 0, 0, err
		}
	default:
		hi, err := offset(b.HiV)
		if err != nil {
			return 0, 0, err
		}
		if err := scan(&o.re, func(v bsoncore.Value) bool { return bsonutil.Compare(hi, v) >= 0 }); err != nil {
			return 0, 0, err
		}
	}
	s, e := max(o.rs, o.ws), max(o.re, o.rs, o.we)
	return s, e, nil
}

func integralValue(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil.AsInt64(v), true
	}
	f := bsonutil.AsFloat64(v)
	return int64(f), f == math.Trunc(f)
}
