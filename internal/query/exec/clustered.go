package exec

import (
	"bytes"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// A clustered collection's records are kept in _id order
// (storage.ClusteredRecords). Its collection scan reads them all, or,
// bounded on the cluster key (plan.Node.ClusterBounds), only the key
// range from the first interval's start to the last one's end: the
// byte range an _id index scan with those bounds would read. The filter
// does the rest, as in mongod's CLUSTERED_IXSCAN. FETCH reaches a
// record by the cluster key its index entry carries (Member.RKey).

// newClusteredScan returns the collection scan of a clustered collection
// for node n.
func newClusteredScan(env Env, n *plan.Node) *CollScan {
	src := storage.ClusteredRecords{CollID: env.CollID}
	if kr := n.KeyRange; kr != nil {
		src.Lo, src.Hi = kr.Lo, kr.Hi
		s := NewSourceScan(env.Reader, src, n.Direction, env.Filter, env.FilterDoc, env.Timing)
		s.clusterRange = kr
		return s
	}
	if n.ClusterBounds != nil {
		sp := buildScanPlan(n.ClusterBounds)
		if len(sp.ranges) > 0 {
			src.Lo, src.Hi = sp.ranges[0].start, sp.ranges[len(sp.ranges)-1].end
		}
	}
	s := NewSourceScan(env.Reader, src, n.Direction, env.Filter, env.FilterDoc, env.Timing)
	s.clusterBounds = n.ClusterBounds
	return s
}

// appendClusterRecords appends explain's minRecord and maxRecord, as
// mongod 7.0 shows them (plan.ClusterRecords).
func appendClusterRecords(b *bsoncore.DocumentBuilder, bounds []plan.FieldBounds) {
	min, max, hasMin, hasMax := plan.ClusterRecords(bounds[0].OIL)
	if hasMin {
		b.AppendValue("minRecord", min)
	}
	if hasMax {
		b.AppendValue("maxRecord", max)
	}
}

// readRunByKey is readRun for a clustered collection: the buffered
// records are read in cluster key order through one cursor.
func (f *Fetch) readRunByKey() {
	key := func(i int) []byte { s := &f.q[i]; return f.keys[s.koff:s.kend] }
	slices.SortFunc(f.order, func(a, b int) int { return bytes.Compare(key(a), key(b)) })
	var prev *fetchSlot
	for n, j := range f.order {
		s := &f.q[j]
		if prev != nil && bytes.Equal(key(j), f.keys[prev.koff:prev.kend]) {
			s.doc = prev.doc
			continue
		}
		doc, found, err := f.getByKey(key(j))
		if err != nil {
			// Hand the error on at the turn of the first record not read.
			for _, k := range f.order[n:] {
				f.q[k].err = err
			}
			return
		}
		if found {
			s.doc = doc
		}
		prev = s
	}
}

// getByKey reads the record whose cluster key is ck through the record
// cursor.
func (f *Fetch) getByKey(ck []byte) (bsoncore.Document, bool, error) {
	if !f.cur.IsOpen() {
		if err := f.cur.OpenClustered(f.r, f.collID, nil, nil, false); err != nil {
			return nil, false, fmt.Errorf("fetch: %w", err)
		}
	}
	doc, _, found, err := f.cur.SeekKey(ck)
	if err != nil || !found {
		return nil, false, err
	}
	return f.slab.copy(doc), true, nil
}

// ClusterKeyRange returns the cluster keystring range [lo, hi) a
// clustered collection scan with bounds reads (nil: unbounded on that
// side), as newClusteredScan computes it.
func ClusterKeyRange(bounds []plan.FieldBounds) (lo, hi []byte) {
	if bounds == nil {
		return nil, nil
	}
	sp := buildScanPlan(bounds)
	if len(sp.ranges) == 0 {
		return nil, nil
	}
	return sp.ranges[0].start, sp.ranges[len(sp.ranges)-1].end
}
