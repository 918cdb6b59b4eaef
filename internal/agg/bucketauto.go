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
			return nil, errs.New(errs.NotImplemented, "$bucketAuto 'granularity' is not supported yet")
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
				cut = &autoCutter{b: b, rc: rc, m: m, n: n, approx: float64(n) / float64(b.buckets)}
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

// autoCutter cuts the sorted stream into buckets of about n/buckets
// documents, never splitting equal values across buckets; each bucket's
// max is the next bucket's min (the last one's is its largest value).
type autoCutter struct {
	b      *bucketAutoStage
	rc     *runCtx
	m      *merger
	n, pos int64
	i      int
	approx float64
}

// next folds the next bucket, or returns nil at the end.
func (c *autoCutter) next() (bsoncore.Document, error) {
	r, err := c.m.peek()
	if err != nil || r == nil {
		return nil, err
	}
	end := int64(math.Round(c.approx * float64(c.i+1)))
	if end <= c.pos {
		end = c.pos + 1
	}
	if end > c.n || c.i == c.b.buckets-1 {
		end = c.n
	}
	c.i++
	// The accumulators see {_id: {min}} until the bucket's max is known.
	var gr *group
	var minV, lastV bsoncore.Value
	var lastKS []byte
	for {
		r, err := c.m.peek()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		ks, body := splitSpillRecord(r)
		if c.pos >= end && compareBytes(ks, lastKS) != 0 {
			// The next bucket starts here; its min is this bucket's max.
			lastV = copyValue(body.Lookup("k"))
			break
		}
		if err := c.m.pop(); err != nil {
			return nil, fmt.Errorf("$bucketAuto merge: %w", err)
		}
		c.pos++
		lastKS = ks
		lastV = copyValue(body.Lookup("k"))
		if gr == nil {
			minV = lastV
			id := bsoncore.NewDocumentBuilder().AppendValue("min", minV).Build()
			if gr, _, err = c.b.out.newGroup(docValue(id), c.rc.vars); err != nil {
				return nil, err
			}
		}
		if _, err := c.b.out.add(gr, body.Lookup("d").Document(), c.rc.vars); err != nil {
			return nil, err
		}
	}
	gr.key = docValue(bsoncore.NewDocumentBuilder().AppendValue("min", minV).AppendValue("max", lastV).Build())
	return c.b.out.result(gr)
}
