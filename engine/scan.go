package engine

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/query"
	"github.com/lodedb/lode/query/exec"
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

// openSource plans filter over c (package plan: index bounds, or a
// collection scan when no index helps) and returns its candidates. The
// caller still applies the full filter to every candidate.
func openSource(r storage.Reader, c *collection, filter bsoncore.Document) (recordSource, error) {
	f, err := query.Parse(filter)
	if err != nil {
		return nil, err
	}
	return plannedSource(r, c, filter, f, nil, bsoncore.Value{}, nil)
}

// scanMatchesSorted is scanMatches with the matches in sortBy order (nil:
// plan order), so that the first match is the least by sortBy. An index
// that provides the order is walked without sorting. hint is the
// statement's index hint (zero Value: none).
func scanMatchesSorted(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, hint bsoncore.Value, empty exec.EmptyRanges, fn func(rid uint64, doc []byte, pos int) bool) error {
	src, err := plannedSource(r, c, filterDoc, f, sortBy, hint, empty)
	if err != nil {
		return err
	}
	defer src.close()
	for {
		rid, doc, ok, err := src.next()
		if err != nil || !ok {
			return err
		}
		matched, pos := f.MatchPositional(doc)
		if !matched {
			continue
		}
		if !fn(rid, doc, pos) {
			return nil
		}
	}
}

// storageReader is storage.Reader (named locally for brevity).
type storageReader = storage.Reader

func splitDotted(p string) []string { return strings.Split(p, ".") }
