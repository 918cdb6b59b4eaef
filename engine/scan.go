package engine

import (
	"bytes"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/keystring"
	"github.com/lodedb/lode/storage"
)

// recordSource yields (recordID, document) pairs. The document slice is
// valid only until the next call.
type recordSource interface {
	next() (recID uint64, doc []byte, ok bool, err error)
	close()
}

// collScan is a COLLSCAN: every record of a collection in recordID order.
type collScan struct {
	cur *storage.RecordCursor
}

func newCollScan(r storage.Reader, collID uint64, reverse bool) (*collScan, error) {
	cur, err := storage.NewRecordCursor(r, collID, reverse)
	if err != nil {
		return nil, err
	}
	return &collScan{cur: cur}, nil
}

func (s *collScan) next() (uint64, []byte, bool, error) {
	id, doc, ok := s.cur.Next()
	if !ok {
		return 0, nil, false, s.cur.Err()
	}
	return id, doc, true, nil
}

func (s *collScan) close() { s.cur.Close() }

// indexPointScan looks up exact keystrings in an index and fetches the
// records they point to (an IXSCAN of points followed by FETCH).
type indexPointScan struct {
	r       storage.Reader
	collID  uint64
	indexID uint64
	points  [][]byte
	cur     *storage.IndexCursor
	ks      []byte
	buf     []byte
}

func newIndexPointScan(r storage.Reader, collID, indexID uint64, points [][]byte) *indexPointScan {
	return &indexPointScan{r: r, collID: collID, indexID: indexID, points: points}
}

func (s *indexPointScan) next() (uint64, []byte, bool, error) {
	for {
		if s.cur == nil {
			if len(s.points) == 0 {
				return 0, nil, false, nil
			}
			s.ks = s.points[0]
			s.points = s.points[1:]
			cur, err := storage.NewIndexCursor(s.r, s.indexID, s.ks, storage.PrefixEnd(s.ks), false)
			if err != nil {
				return 0, nil, false, err
			}
			s.cur = cur
		}
		ks, rid, _, ok := s.cur.Next()
		if !ok {
			err := s.cur.Err()
			s.cur.Close()
			s.cur = nil
			if err != nil {
				return 0, nil, false, err
			}
			continue
		}
		if !bytes.Equal(ks, s.ks) {
			continue
		}
		doc, found, err := storage.GetRecord(s.r, s.collID, rid, s.buf[:0])
		if err != nil {
			return 0, nil, false, err
		}
		s.buf = doc
		if !found {
			continue // entry without record: must not happen; skip
		}
		return rid, doc, true, nil
	}
}

func (s *indexPointScan) close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}

// idPoints returns the _id values a filter pins by equality or $in, when
// it does. Such a filter can be answered with _id index point lookups.
func idPoints(filter bsoncore.Document) ([]bsoncore.Value, bool) {
	v, err := filter.LookupErr("_id")
	if err != nil {
		return nil, false
	}
	switch v.Type {
	case bsoncore.TypeRegex, bsoncore.TypeArray:
		return nil, false
	case bsoncore.TypeEmbeddedDocument:
		d := v.Document()
		elems, err := d.Elements()
		if err != nil || len(elems) == 0 || len(elems[0].Key()) == 0 || elems[0].Key()[0] != '$' {
			return []bsoncore.Value{v}, true // equality with an embedded document
		}
		for _, e := range elems {
			switch e.Key() {
			case "$eq":
				x := e.Value()
				if x.Type == bsoncore.TypeRegex || x.Type == bsoncore.TypeArray {
					return nil, false
				}
				return []bsoncore.Value{x}, true
			case "$in":
				if e.Value().Type != bsoncore.TypeArray {
					return nil, false
				}
				vals, err := e.Value().Array().Values()
				if err != nil {
					return nil, false
				}
				for _, x := range vals {
					if x.Type == bsoncore.TypeRegex || x.Type == bsoncore.TypeArray {
						return nil, false
					}
				}
				return vals, true
			}
		}
		return nil, false
	default:
		return []bsoncore.Value{v}, true
	}
}

// idKeystrings encodes _id points as sorted, distinct keystrings.
func idKeystrings(points []bsoncore.Value) [][]byte {
	out := make([][]byte, 0, len(points))
	for _, p := range points {
		out = append(out, keystring.AppendValue(nil, p, false))
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i], out[j]) < 0 })
	w := 0
	for r := range out {
		if w == 0 || !bytes.Equal(out[r], out[w-1]) {
			out[w] = out[r]
			w++
		}
	}
	return out[:w]
}

// openSource picks how to find the candidates of filter in c: _id point
// lookups when the filter pins _id, else a collection scan. The caller
// still applies the full filter to every candidate.
func openSource(r storage.Reader, c *collection, filter bsoncore.Document) (recordSource, error) {
	if pts, ok := idPoints(filter); ok {
		if idIx := c.indexByName("_id_"); idIx != nil {
			return newIndexPointScan(r, c.id, idIx.id, idKeystrings(pts)), nil
		}
	}
	return newCollScan(r, c.id, false)
}

// storageReader is storage.Reader (named locally for brevity).
type storageReader = storage.Reader

func splitDotted(p string) []string { return strings.Split(p, ".") }
