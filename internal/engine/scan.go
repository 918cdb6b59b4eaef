package engine

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/storage"
)

// recordSource yields (recordID, document) pairs. The document slice is
// valid only until the next call.
type recordSource interface {
	next() (recID uint64, doc []byte, ok bool, err error)
	close()
}

// scanMatchesSorted is scanMatches with the matches in sortBy order (nil:
// plan order), so that the first match is the least by sortBy. An index
// that provides the order is walked without sorting. hint is the
// statement's index hint (zero Value: none). first says that fn takes
// only the first match (plannedSource then plans for one).
func (e *Engine) scanMatchesSorted(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, first bool, hint bsoncore.Value, empty exec.EmptyRanges, st *opstats.Stats, fn func(rid uint64, doc []byte, pos int) bool) error {
	src, err := e.plannedSource(r, c, filterDoc, f, sortBy, first, hint, empty, st)
	if err != nil {
		return err
	}
	defer src.close()
	for {
		rid, doc, ok, err := src.next()
		if err != nil || !ok {
			return err
		}
		matched, pos, err := f.MatchChecked(doc)
		if err != nil {
			return err // a $expr failed: the statement fails
		}
		if !matched {
			continue
		}
		if !fn(rid, doc, pos) {
			return nil
		}
	}
}

func splitDotted(p string) []string { return strings.Split(p, ".") }
