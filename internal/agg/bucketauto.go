package agg

import (
	"encoding/binary"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/keystring"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$bucketAuto", stageDef{parse: parseBucketAuto, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
}

// bucketAutoStage is $bucketAuto.
type bucketAutoStage struct {
	raw     bsoncore.Value
	groupBy expr.Expr
	buckets int
	gran    *granularity // nil without one
	out     *groupStage
}

func parseBucketAuto(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location40240, "The argument to $bucketAuto must be an object, but found type: %s.", bsonutil.TypeName(v.Type))
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
				return nil, errs.New(errs.Location40241, "The $bucketAuto 'buckets' field must be a numeric value, but found type: %s.", bsonutil.TypeName(ev.Type))
			}
			if f <= 0 {
				return nil, errs.New(errs.Location40243, "The $bucketAuto 'buckets' field must be greater than 0, but found: %s.", ev.String())
			}
			ba.buckets, hasBuckets = int(f), true
		case "output":
			output = ev
		case "granularity":
			g, err := parseGranularity(ev)
			if err != nil {
				return nil, err
			}
			ba.gran = g
		default:
			return nil, errs.New(errs.Location40245, "Unrecognized option to $bucketAuto: %s.", el.Key())
		}
	}
	if groupBy.Type == 0 || !hasBuckets {
		return nil, errs.New(errs.Location40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
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

func (b *bucketAutoStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	sp := rc.pc.newSpiller()
	var cut *autoCutter
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if cut == nil {
				m, n, err := b.sortInput(rc, in, sp)
				if err != nil {
					return nil, err
				}
				// Each bucket takes about n/buckets documents, rounded
				// half away from zero, the last one all that remain
				// (mongod's std::round).
				approx := int64(math.Round(float64(n) / float64(b.buckets)))
				cut = &autoCutter{b: b, rc: rc, m: m, approx: max(approx, 1)}
			}
			return cut.next()
		},
		close: func() error { sp.close(); return in.Close() },
	}, nil
}

// sortInput sorts the input by groupBy with an external sort: records
// (keystring of the value, then {k: value, d: document}) are held up to the
// memory limit, then written as sorted runs when disk use is allowed. It
// returns the merged stream and the number of documents.
func (b *bucketAutoStage) sortInput(rc *runCtx, in Iterator, sp *spiller) (*merger, int64, error) {
	limit := rc.pc.memLimit()
	var recs [][]byte
	var mem, n int64
	var ks []byte
	for {
		d, err := nextChecked(rc.ctx, in, n)
		if err != nil {
			return nil, 0, err
		}
		if d == nil {
			break
		}
		n++
		k, err := b.groupBy.Eval(d, rc.vars)
		if err != nil {
			return nil, 0, err
		}
		if b.gran != nil {
			if err := b.gran.checkKey(k); err != nil {
				return nil, 0, err
			}
		}
		if expr.IsMissing(k) {
			k = expr.Null
		}
		// Under a collation, values sort (and equal ones share a
		// bucket) by their strings' sort keys; the bounds stay the
		// values met.
		ks = keystring.AppendValue(ks[:0], b.out.coll.Transform(k), false)
		rec := binary.AppendUvarint(nil, uint64(len(ks)))
		rec = append(rec, ks...)
		rec = append(rec, bsoncore.NewDocumentBuilder().AppendValue("k", k).AppendDocument("d", d).Build()...)
		recs = append(recs, rec)
		mem += int64(len(rec)) + docOverhead
		if mem > limit {
			if !rc.pc.AllowDiskUse {
				return nil, 0, memoryError("$bucketAuto", limit)
			}
			sortRecords(recs)
			if err := sp.writeRun(recs); err != nil {
				return nil, 0, fmt.Errorf("$bucketAuto spill: %w", err)
			}
			recs, mem = nil, 0
		}
	}
	sortRecords(recs)
	m, err := sp.merge(recs, compareSpillRecords)
	if err != nil {
		return nil, 0, fmt.Errorf("$bucketAuto merge: %w", err)
	}
	return m, n, nil
}

// autoCutter cuts the sorted stream into buckets as mongod does: each
// takes approx documents (the last one every remaining document), then
// every following document of the same value. Without a granularity a
// bucket's max is the next bucket's first value (the last one's is its
// largest value); with one, the max is the largest value rounded up,
// which takes in the values below it too, and the next bucket's min is
// that max (the first bucket's min is its first value rounded down).
type autoCutter struct {
	b       *bucketAutoStage
	rc      *runCtx
	m       *merger
	approx  int64
	num     int             // buckets begun
	prevMax *bsoncore.Value // with a granularity: the last bucket's max
}

// next folds the next bucket, or returns nil at the end.
func (c *autoCutter) next() (bsoncore.Document, error) {
	r, err := c.m.peek()
	if err != nil || r == nil {
		return nil, err
	}
	c.num++
	last := c.num == c.b.buckets
	// The accumulators see {_id: {min}} until the bucket's max is known.
	var gr *group
	var firstV, maxV bsoncore.Value
	var maxKS []byte
	take := func(ks []byte, body bsoncore.Document) error {
		if err := c.m.pop(); err != nil {
			return fmt.Errorf("$bucketAuto merge: %w", err)
		}
		maxKS = append(maxKS[:0], ks...)
		maxV = copyValue(body.Lookup("k"))
		if gr == nil {
			firstV = maxV
			id := bsoncore.NewDocumentBuilder().AppendValue("min", firstV).Build()
			var err error
			if gr, _, err = c.b.out.newGroup(docValue(id), c.rc.vars); err != nil {
				return err
			}
		}
		_, err := c.b.out.add(gr, body.Lookup("d").Document(), c.rc.vars)
		return err
	}
	// peekNext is the next record's keystring and body, or nil.
	peekNext := func() ([]byte, bsoncore.Document, error) {
		r, err := c.m.peek()
		if err != nil || r == nil {
			return nil, nil, err
		}
		ks, body := splitSpillRecord(r)
		return ks, body, nil
	}
	for i := int64(0); i < c.approx || last; i++ {
		ks, body, err := peekNext()
		if err != nil {
			return nil, err
		}
		if body == nil {
			break
		}
		if err := take(ks, body); err != nil {
			return nil, err
		}
	}
	minV := firstV
	if g := c.b.gran; g != nil {
		bound := g.roundUp(maxV)
		boundKS := keystring.AppendValue(nil, bound, false)
		var nextBody bsoncore.Document
		for {
			ks, body, err := peekNext()
			if err != nil {
				return nil, err
			}
			if nextBody = body; body == nil || (compareBytes(boundKS, ks) <= 0 && compareBytes(maxKS, ks) != 0) {
				break
			}
			if err := take(ks, body); err != nil {
				return nil, err
			}
		}
		if bsonutil.AsFloat64(bound) == 0 && nextBody != nil {
			// A first bucket of zeros: its max is the next value rounded
			// down, so that it stays exclusive.
			maxV = g.roundDown(copyValue(nextBody.Lookup("k")))
		} else {
			maxV = bound
		}
		if c.prevMax != nil {
			minV = *c.prevMax
		} else {
			minV = g.roundDown(firstV)
		}
		c.prevMax = &maxV
	} else {
		for {
			ks, body, err := peekNext()
			if err != nil {
				return nil, err
			}
			if body == nil {
				break
			}
			if compareBytes(maxKS, ks) != 0 {
				// The next bucket starts here; its min is this bucket's max.
				maxV = copyValue(body.Lookup("k"))
				break
			}
			if err := take(ks, body); err != nil {
				return nil, err
			}
		}
	}
	gr.key = docValue(bsoncore.NewDocumentBuilder().AppendValue("min", minV).AppendValue("max", maxV).Build())
	return c.b.out.result(gr)
}
