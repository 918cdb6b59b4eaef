package agg

import (
	"container/heap"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// $_internalBoundedSort is mongod's sort of the measurements of buckets
// read in time order: a $sort on the time field after
// $_internalUnpackBucket becomes, when the buckets come in the order of
// their _id (an ObjectId whose time is the bucket's rounded minimum, so
// the order of control.min of the time field), a sort that holds only
// the measurements not yet known to come before every later one: every
// later measurement is at or after the current bucket's control.min
// (ascending), or before control.min plus bucketMaxSpanSeconds
// (descending). With a $limit, it stops reading buckets once it has
// them. The stage must follow the unpack, which tells it each bucket's
// bound (unpackbucket_rewrite.go puts both there).

// The registry entry of the stage in this file (stagedef.go).
func init() {
	w := anywhere
	w.inFacet = no
	registerStage("$_internalBoundedSort", stageDef{parse: parseBoundedSort, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeVerbatim})
}

// boundedSortStage is $_internalBoundedSort.
type boundedSortStage struct {
	field string
	dir   int32 // 1 or -1
	// base is "min" or "max" of the bucket's time; offset is in seconds.
	base   string
	offset int64
	limit  int64 // 0: none
	// bound is what the unpack before it tells of the bucket being
	// unpacked (linked by linkBoundedSorts).
	bound *bucketBound
}

// bucketBound is the control.min and control.max of the time field of
// the bucket the unpack read last.
type bucketBound struct {
	min, max int64 // milliseconds
	ok       bool
}

func parseBoundedSort(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort specification must be an object")
	}
	s := &boundedSortStage{base: "min"}
	els, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $_internalBoundedSort: %v", err)
	}
	hasKey := false
	for _, e := range els {
		ev := e.Value()
		switch e.Key() {
		case "sortKey":
			k, ok := ev.DocumentOK()
			kels, _ := k.Elements()
			if !ok || len(kels) != 1 {
				return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort sortKey must be an object with one field")
			}
			n, ok := ev.Document().Index(0).Value().AsInt64OK()
			if !ok || (n != 1 && n != -1) {
				return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort sortKey must be 1 or -1")
			}
			s.field, s.dir, hasKey = kels[0].Key(), int32(n), true
		case "bound":
			b, ok := ev.DocumentOK()
			if !ok {
				return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort bound must be an object")
			}
			bels, _ := b.Elements()
			for _, be := range bels {
				switch be.Key() {
				case "base":
					base, ok := be.Value().StringValueOK()
					if !ok || (base != "min" && base != "max") {
						return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort bound base must be 'min' or 'max'")
					}
					s.base = base
				case "offsetSeconds":
					n, ok := be.Value().AsInt64OK()
					if !ok {
						return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort bound offsetSeconds must be an integer")
					}
					s.offset = n
				default:
					return nil, errs.New(errs.FailedToParse, "unrecognized field in $_internalBoundedSort bound: %s", be.Key())
				}
			}
		case "limit":
			n, ok := ev.AsInt64OK()
			if !ok || n < 0 {
				return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort limit must be a non-negative integer")
			}
			s.limit = n
		default:
			return nil, errs.New(errs.FailedToParse, "unrecognized field in $_internalBoundedSort: %s", e.Key())
		}
	}
	if !hasKey || strings.Contains(s.field, ".") {
		return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort needs a sortKey on a top-level field")
	}
	return []stage{s}, nil
}

// linkBoundedSorts gives each $_internalBoundedSort the bounds of the
// $_internalUnpackBucket right before it, which it needs.
func linkBoundedSorts(stages []stage) error {
	for i, s := range stages {
		bs, ok := s.(*boundedSortStage)
		if !ok {
			continue
		}
		var u *unpackStage
		if i > 0 {
			u, _ = stages[i-1].(*unpackStage)
		}
		if u == nil || u.us.timeField != bs.field {
			return errs.New(errs.FailedToParse, "$_internalBoundedSort must follow $_internalUnpackBucket and sort on its time field")
		}
		bs.bound = &bucketBound{}
		u.bound = bs.bound
	}
	return nil
}

func (s *boundedSortStage) name() string { return "$_internalBoundedSort" }

func (s *boundedSortStage) spec() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendDocument("sortKey", bsoncore.NewDocumentBuilder().AppendInt32(s.field, s.dir).Build()).
		AppendDocument("bound", bsoncore.NewDocumentBuilder().AppendString("base", s.base).AppendInt64("offsetSeconds", s.offset).Build())
	if s.limit > 0 {
		b.AppendInt64("limit", s.limit)
	}
	return specDoc("$_internalBoundedSort", docValue(b.Build()))
}

// sortedDoc is a held measurement and its sort key.
type sortedDoc struct {
	key bsoncore.Value
	doc bsoncore.Document
	seq int64
}

// docHeap orders held measurements by key in the sort's direction, then
// by arrival.
type docHeap struct {
	docs []sortedDoc
	dir  int
}

func (h *docHeap) Len() int { return len(h.docs) }
func (h *docHeap) Less(i, j int) bool {
	if c := bsonutil.Compare(h.docs[i].key, h.docs[j].key) * h.dir; c != 0 {
		return c < 0
	}
	return h.docs[i].seq < h.docs[j].seq
}
func (h *docHeap) Swap(i, j int) { h.docs[i], h.docs[j] = h.docs[j], h.docs[i] }
func (h *docHeap) Push(x any)    { h.docs = append(h.docs, x.(sortedDoc)) }
func (h *docHeap) Pop() any {
	n := len(h.docs) - 1
	d := h.docs[n]
	h.docs[n] = sortedDoc{}
	h.docs = h.docs[:n]
	return d
}

func (s *boundedSortStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	if s.bound == nil {
		// Not linked (a pipeline parsed without agg.Parse).
		return nil, errs.New(errs.FailedToParse, "$_internalBoundedSort must follow $_internalUnpackBucket")
	}
	h := &docHeap{dir: int(s.dir)}
	var seq, emitted int64
	done := false
	// bound is the key no later measurement comes before (after, when
	// descending), known once the first measurement came.
	var bound int64
	haveBound := false
	ready := func() bool {
		if h.Len() == 0 {
			return false
		}
		if done {
			return true
		}
		k := h.docs[0].key
		if !haveBound || k.Type != bsoncore.TypeDateTime {
			return false
		}
		if s.dir == 1 {
			return k.DateTime() <= bound
		}
		return k.DateTime() >= bound
	}
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			for {
				if s.limit > 0 && emitted >= s.limit {
					return nil, nil
				}
				if ready() {
					emitted++
					return heap.Pop(h).(sortedDoc).doc, nil
				}
				if done {
					return nil, nil
				}
				d, err := nextChecked(rc.ctx, in, seq)
				if err != nil {
					return nil, err
				}
				if d == nil {
					done = true
					continue
				}
				if !s.bound.ok {
					return nil, errs.New(errs.InternalError, "$_internalBoundedSort: the bucket has no control.min and control.max of the time field")
				}
				base := s.bound.min
				if s.base == "max" {
					base = s.bound.max
				}
				nb := base + s.offset*1000
				k, _ := d.LookupErr(s.field)
				// A measurement before the bound means the buckets did not
				// come in the order of their time.
				if haveBound && k.Type == bsoncore.TypeDateTime && ((s.dir == 1 && k.DateTime() < bound) || (s.dir == -1 && k.DateTime() > bound)) {
					return nil, errs.New(errs.Location6369910, "BoundedSorter input is too out-of-order: with bound %s, did not expect input %s",
						expr.Date(bound).String(), k.String())
				}
				if !haveBound || (s.dir == 1 && nb > bound) || (s.dir == -1 && nb < bound) {
					bound, haveBound = nb, true
				}
				seq++
				heap.Push(h, sortedDoc{key: k, doc: d, seq: seq})
			}
		},
		close: in.Close,
	}, nil
}
