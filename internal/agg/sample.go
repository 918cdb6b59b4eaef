package agg

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$sample", stageDef{parse: parseSample, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
}

// sampleStage is $sample: a reservoir of size documents.
type sampleStage struct {
	raw  bsoncore.Value
	size int64
}

func parseSample(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location28745, "the $sample stage specification must be an object")
	}
	s := &sampleStage{raw: v, size: -1}
	els, _ := d.Elements()
	for _, el := range els {
		if el.Key() != "size" {
			return nil, errs.New(errs.Location28748, "unrecognized option to $sample: %s", el.Key())
		}
		if !bsonutil.IsNumber(el.Value().Type) {
			return nil, errs.New(errs.Location28746, "size argument to $sample must be a number")
		}
		s.size = bsonutil.AsInt64(el.Value())
		if s.size < 0 {
			return nil, errs.New(errs.Location28747, "size argument to $sample must not be negative")
		}
	}
	if s.size < 0 {
		return nil, errs.New(errs.Location28749, "$sample stage must specify a size")
	}
	return []stage{s}, nil
}

func (s *sampleStage) name() string            { return "$sample" }
func (s *sampleStage) spec() bsoncore.Document { return specDoc("$sample", s.raw) }

func (s *sampleStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	sp := rc.pc.newSpiller()
	var m *merger
	var taken int64
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if m == nil {
				var err error
				if m, err = s.sample(rc, in, sp); err != nil {
					return nil, err
				}
			}
			if taken >= s.size {
				return nil, nil
			}
			r, err := m.next()
			if err != nil || r == nil {
				return nil, err
			}
			taken++
			_, d := splitSpillRecord(r)
			return d, nil
		},
		close: func() error { sp.close(); return in.Close() },
	}, nil
}

// sample gives every input document a random 64-bit key and keeps the
// size documents with the smallest keys, a uniform sample in random order.
// Candidates are held up to twice the size (or the memory limit); then only
// the best size of them are kept, and when those alone fill half the limit they are written
// to a sorted run (allowDiskUse) or the stage fails with 292. It returns
// the merged candidates, best first.
func (s *sampleStage) sample(rc *runCtx, in Iterator, sp *spiller) (*merger, error) {
	limit := rc.pc.memLimit()
	var recs [][]byte
	var mem int64
	shrink := func() {
		sortRecords(recs)
		if int64(len(recs)) > s.size {
			for i := s.size; i < int64(len(recs)); i++ {
				recs[i] = nil
			}
			recs = recs[:s.size]
		}
		mem = 0
		for _, r := range recs {
			mem += int64(len(r)) + docOverhead
		}
	}
	for n := int64(0); ; n++ {
		d, err := nextChecked(rc.ctx, in, n)
		if err != nil {
			return nil, err
		}
		if d == nil {
			break
		}
		if s.size == 0 {
			continue
		}
		rec := binary.AppendUvarint(make([]byte, 0, len(d)+9), 8)
		rec = binary.BigEndian.AppendUint64(rec, rand.Uint64())
		rec = append(rec, d...)
		recs = append(recs, rec)
		mem += int64(len(rec)) + docOverhead
		// Shrink to the best size candidates once twice as many are held
		// (so a small sample stays small) or the memory limit is reached.
		if mem <= limit && int64(len(recs)) < 2*s.size+1024 {
			continue
		}
		shrink()
		switch {
		case mem > limit && !rc.pc.AllowDiskUse:
			return nil, memoryError("$sample", limit)
		case mem > limit/2 && rc.pc.AllowDiskUse:
			if err := sp.writeRun(recs); err != nil {
				return nil, fmt.Errorf("$sample spill: %w", err)
			}
			recs, mem = nil, 0
		}
	}
	shrink()
	m, err := sp.merge(recs, compareSpillRecords)
	if err != nil {
		return nil, fmt.Errorf("$sample merge: %w", err)
	}
	return m, nil
}
