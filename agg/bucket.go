package agg

import (
	"math"
	"math/rand/v2"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/agg/accum"
	"github.com/lodedb/lode/bsonutil"
	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/expr"
)

// bucketStage is $bucket: a $group keyed by the boundary range of groupBy,
// followed by a sort on _id.
type bucketStage struct {
	*groupStage
	raw        bsoncore.Value
	groupBy    expr.Expr
	boundaries []bsoncore.Value
	def        bsoncore.Value // missing when absent
}

func parseOutputSpec(stageName string, output bsoncore.Value, pc *ParseContext) (*groupStage, error) {
	b := bsoncore.NewDocumentBuilder().AppendNull("_id")
	if output.Type == 0 {
		b.AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build())
	} else {
		od, ok := output.DocumentOK()
		if !ok {
			return nil, errs.New(errs.Code(40196), "The %s 'output' field must be an object, but found type: %s.", stageName, expr.TypeName(output))
		}
		els, _ := od.Elements()
		for _, el := range els {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return newGroup(docValue(b.Build()), pc)
}

func parseBucket(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Code(40201), "Argument to $bucket stage must be an object, but found type: %s.", expr.TypeName(v))
	}
	bs := &bucketStage{raw: v}
	var groupBy, bounds, output bsoncore.Value
	els, _ := d.Elements()
	for _, el := range els {
		switch el.Key() {
		case "groupBy":
			groupBy = el.Value()
		case "boundaries":
			bounds = el.Value()
		case "default":
			bs.def = el.Value()
		case "output":
			output = el.Value()
		default:
			return nil, errs.New(errs.Code(40197), "Unrecognized option to $bucket: %s.", el.Key())
		}
	}
	if groupBy.Type == 0 || bounds.Type == 0 {
		return nil, errs.New(errs.Code(40198), "$bucket requires 'groupBy' and 'boundaries' to be specified.")
	}
	if groupBy.Type != bsoncore.TypeString && !isOperatorDoc(groupBy) || groupBy.Type == bsoncore.TypeString && (len(groupBy.StringValue()) == 0 || groupBy.StringValue()[0] != '$') {
		return nil, errs.New(errs.Code(40202), "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: %s.", groupBy.String())
	}
	arr, ok := bounds.ArrayOK()
	if !ok {
		return nil, errs.New(errs.Code(40200), "The $bucket 'boundaries' field must be an array, but found type: %s.", expr.TypeName(bounds))
	}
	vals, _ := arr.Values()
	if len(vals) < 2 {
		return nil, errs.New(errs.Code(40192), "The $bucket 'boundaries' field must have at least 2 values, but found %d value(s).", len(vals))
	}
	for i := 1; i < len(vals); i++ {
		a, b := vals[i-1], vals[i]
		if bsonutil.TypeOrder(a.Type) != bsonutil.TypeOrder(b.Type) {
			return nil, errs.New(errs.Code(40193), "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types %s and %s.", expr.TypeName(a), expr.TypeName(b))
		}
		if bsonutil.Compare(a, b) >= 0 {
			return nil, errs.New(errs.Code(40194), "The 'boundaries' option to $bucket must be sorted in ascending order, but elements %d and %d are not in ascending order (%s is not less than %s).", i-1, i, a.String(), b.String())
		}
	}
	bs.boundaries = vals
	if bs.def.Type != 0 {
		lo, hi := vals[0], vals[len(vals)-1]
		if bsonutil.TypeOrder(bs.def.Type) == bsonutil.TypeOrder(lo.Type) && bsonutil.Compare(bs.def, lo) >= 0 && bsonutil.Compare(bs.def, hi) < 0 {
			return nil, errs.New(errs.Code(40199), "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.")
		}
	}
	e, err := expr.Parse(groupBy, pc.Expr)
	if err != nil {
		return nil, err
	}
	bs.groupBy = e
	g, err := parseOutputSpec("$bucket", output, pc)
	if err != nil {
		return nil, err
	}
	g.raw = v
	g.idConst = false
	g.id = expr.Const(expr.Null)
	bs.groupStage = g
	g.keyFn = bs.bucketKey
	s, _ := parseSort(docValue(bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()), pc)
	return []stage{bs, s[0]}, nil
}

func (b *bucketStage) name() string            { return "$bucket" }
func (b *bucketStage) spec() bsoncore.Document { return specDoc("$bucket", b.raw) }

// bucketKey returns the lower boundary of the bucket holding doc.
func (b *bucketStage) bucketKey(d bsoncore.Document, vars *expr.Vars) (bsoncore.Value, error) {
	v, err := b.groupBy.Eval(d, vars)
	if err != nil {
		return bsoncore.Value{}, err
	}
	if expr.IsMissing(v) {
		v = expr.Null
	}
	bs := b.boundaries
	if bsonutil.TypeOrder(v.Type) == bsonutil.TypeOrder(bs[0].Type) && bsonutil.Compare(v, bs[0]) >= 0 && bsonutil.Compare(v, bs[len(bs)-1]) < 0 {
		i := sort.Search(len(bs), func(i int) bool { return bsonutil.Compare(bs[i], v) > 0 })
		return bs[i-1], nil
	}
	if b.def.Type == 0 {
		return bsoncore.Value{}, errs.New(errs.Code(40066), "$switch could not find a matching branch for an input, and no default was specified.")
	}
	return b.def, nil
}

// bucketAutoStage is $bucketAuto.
type bucketAutoStage struct {
	raw     bsoncore.Value
	groupBy expr.Expr
	buckets int
	out     *groupStage
}

func parseBucketAuto(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Code(40240), "The argument to $bucketAuto must be an object, but found type: %s.", expr.TypeName(v))
	}
	ba := &bucketAutoStage{raw: v}
	var groupBy, output bsoncore.Value
	hasBuckets := false
	els, _ := d.Elements()
	for _, el := range els {
		ev := el.Value()
		switch el.Key() {
		case "groupBy":
			groupBy = ev
		case "buckets":
			f := bsonutil.AsFloat64(ev)
			if !bsonutil.IsNumber(ev.Type) || f != math.Trunc(f) || f > math.MaxInt32 {
				return nil, errs.New(errs.Code(40241), "The $bucketAuto 'buckets' field must be a numeric value, but found type: %s.", expr.TypeName(ev))
			}
			if f <= 0 {
				return nil, errs.New(errs.Code(40243), "The $bucketAuto 'buckets' field must be greater than 0, but found: %s.", ev.String())
			}
			ba.buckets, hasBuckets = int(f), true
		case "output":
			output = ev
		case "granularity":
			return nil, errs.New(errs.NotImplemented, "$bucketAuto 'granularity' is not supported yet")
		default:
			return nil, errs.New(errs.Code(40245), "Unrecognized option to $bucketAuto: %s.", el.Key())
		}
	}
	if groupBy.Type == 0 || !hasBuckets {
		return nil, errs.New(errs.Code(40246), "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
	}
	e, err := expr.Parse(groupBy, pc.Expr)
	if err != nil {
		return nil, err
	}
	ba.groupBy = e
	if ba.out, err = parseOutputSpec("$bucketAuto", output, pc); err != nil {
		return nil, err
	}
	return []stage{ba}, nil
}

func (b *bucketAutoStage) name() string            { return "$bucketAuto" }
func (b *bucketAutoStage) spec() bsoncore.Document { return specDoc("$bucketAuto", b.raw) }

type autoItem struct {
	key bsoncore.Value
	doc bsoncore.Document
}

func (b *bucketAutoStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	var out Iterator
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if out == nil {
				docs, err := b.compute(rc, in)
				if err != nil {
					return nil, err
				}
				out = &sliceIter{docs: docs}
			}
			return out.Next()
		},
		close: in.Close,
	}, nil
}

// compute sorts the input by groupBy and cuts it into buckets of about
// n/buckets documents, never splitting equal values across buckets; each
// bucket's max is the next bucket's min (the last one's is its largest
// value).
func (b *bucketAutoStage) compute(rc *runCtx, in Iterator) ([]bsoncore.Document, error) {
	limit := rc.pc.memLimit()
	var items []autoItem
	var mem int64
	for {
		d, err := in.Next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			break
		}
		k, err := b.groupBy.Eval(d, rc.vars)
		if err != nil {
			return nil, err
		}
		if expr.IsMissing(k) {
			k = expr.Null
		}
		items = append(items, autoItem{key: copyValue(k), doc: d})
		mem += int64(len(d)+len(k.Data)) + docOverhead
		if mem > limit && !rc.pc.AllowDiskUse {
			return nil, memoryError("$bucketAuto", limit)
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
	sort.SliceStable(items, func(i, j int) bool { return bsonutil.Compare(items[i].key, items[j].key) < 0 })
	n := len(items)
	approx := float64(n) / float64(b.buckets)
	type span struct{ lo, hi int }
	var spans []span
	start := 0
	for i := 0; start < n; i++ {
		end := int(math.Round(approx * float64(i+1)))
		if end <= start {
			end = start + 1
		}
		if end > n || i == b.buckets-1 {
			end = n
		}
		for end < n && bsonutil.Compare(items[end].key, items[end-1].key) == 0 {
			end++
		}
		spans = append(spans, span{start, end})
		start = end
	}
	var res []bsoncore.Document
	for si, sp := range spans {
		minV := items[sp.lo].key
		maxV := items[sp.hi-1].key
		if si+1 < len(spans) {
			maxV = items[spans[si+1].lo].key
		}
		id := bsoncore.NewDocumentBuilder().AppendValue("min", minV).AppendValue("max", maxV).Build()
		gr, _, err := b.out.newGroup(docValue(id), rc.vars)
		if err != nil {
			return nil, err
		}
		for _, it := range items[sp.lo:sp.hi] {
			if _, err := b.out.add(gr, it.doc, rc.vars); err != nil {
				return nil, err
			}
		}
		d, err := b.out.result(gr)
		if err != nil {
			return nil, err
		}
		res = append(res, d)
	}
	return res, nil
}

// sampleStage is $sample: a reservoir of size documents.
type sampleStage struct {
	raw  bsoncore.Value
	size int64
}

func parseSample(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Code(28745), "the $sample stage specification must be an object")
	}
	s := &sampleStage{raw: v, size: -1}
	els, _ := d.Elements()
	for _, el := range els {
		if el.Key() != "size" {
			return nil, errs.New(errs.Code(28748), "unrecognized option to $sample: %s", el.Key())
		}
		if !bsonutil.IsNumber(el.Value().Type) {
			return nil, errs.New(errs.Code(28746), "size argument to $sample must be a number")
		}
		s.size = bsonutil.AsInt64(el.Value())
		if s.size < 0 {
			return nil, errs.New(errs.Code(28747), "size argument to $sample must not be negative")
		}
	}
	if s.size < 0 {
		return nil, errs.New(errs.Code(28749), "$sample stage must specify a size")
	}
	return []stage{s}, nil
}

func (s *sampleStage) name() string            { return "$sample" }
func (s *sampleStage) spec() bsoncore.Document { return specDoc("$sample", s.raw) }

func (s *sampleStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	var out Iterator
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if out == nil {
				limit := rc.pc.memLimit()
				var res []bsoncore.Document
				var seen, mem int64
				for {
					d, err := in.Next()
					if err != nil {
						return nil, err
					}
					if d == nil {
						break
					}
					seen++
					if int64(len(res)) < s.size {
						res = append(res, d)
						mem += int64(len(d)) + docOverhead
						if mem > limit && !rc.pc.AllowDiskUse {
							return nil, memoryError("$sample", limit)
						}
					} else if j := rand.Int64N(seen); j < s.size {
						res[j] = d
					}
				}
				rand.Shuffle(len(res), func(i, j int) { res[i], res[j] = res[j], res[i] })
				out = &sliceIter{docs: res}
			}
			return out.Next()
		},
		close: in.Close,
	}, nil
}

var _ = accum.IsAccumulator
