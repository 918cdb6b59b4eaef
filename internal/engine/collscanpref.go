package engine

import (
	"fmt"

	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// Collection-scan preference. mongod uses any index whose bounds help; a
// FETCH over an index range that holds most of the collection then reads
// the documents one random seek each, where a collection scan reads them
// in storage order (and, under $group, in parallel: FindPartitions). So
// when every candidate is a plain FETCH over one IXSCAN whose bounds hold
// more than collScanShare of the collection's documents, and nothing else
// needs the index (no sort it provides, no limit, no covered plan, no
// hint), the planner runs a COLLSCAN instead; explain lists the index
// plans under rejectedPlans with a rejectedReason field.
const (
	// collScanShareNum/Den: the share of the collection above which the
	// collection scan is preferred (one half).
	collScanShareNum, collScanShareDen = 1, 2
	// MinCollScanPreferDocs is the smallest collection the preference
	// applies to: below it either plan is cheap, and small collections
	// keep mongod's plans.
	MinCollScanPreferDocs = 1000
)

// RejectedReasonField is the field explain adds to a rejected plan that
// lost to the collection-scan preference.
const RejectedReasonField = "rejectedReason"

// preferCollScan reports whether q should scan the collection rather than
// use the candidates sols, and why. The share of an index that a
// candidate's bounds hold is estimated from Pebble's on-disk size of the
// key ranges against the whole index's (reading no keys) once the index
// has at least minEstimateBytes in sstables; a smaller index, mostly in
// the memtable, has its keys counted instead, up to half the collection.
func preferCollScan(r storage.Reader, c *collection, q planReq, sols []*plan.Solution) (string, bool) {
	if !q.preferCollScan || q.hint.Type != 0 || q.naturalDir < 0 || q.opts.Limit > 0 || q.opts.Keys || q.covered {
		return "", false
	}
	var reason string
	for _, s := range sols {
		scan := replaceableScan(s, q)
		if scan == nil {
			return "", false
		}
		why, ok := boundsHoldMost(r, q.db, c, scan)
		if !ok {
			return "", false
		}
		reason = why
	}
	return reason, reason != ""
}

// minEstimateBytes is the on-disk index size from which the share of the
// index within bounds is estimated from sizes rather than counted.
const minEstimateBytes = 256 << 10

// boundsHoldMost reports whether scan's bounds hold more than
// collScanShareNum/Den of its index's entries, with the reason explain
// shows.
func boundsHoldMost(r storage.Reader, db *storage.DB, c *collection, scan *plan.Node) (string, bool) {
	var total uint64
	var err error
	if db != nil {
		total, err = db.IndexDiskUsage(scan.Index.ID)
	}
	if db != nil && err == nil && total >= minEstimateBytes {
		starts, ends := exec.ScanRanges(scan.Bounds)
		var part uint64
		for i := range starts {
			n, err := db.IndexSpanDiskUsage(scan.Index.ID, starts[i], ends[i])
			if err != nil {
				return "", false
			}
			part += n
		}
		if part*collScanShareDen <= total*collScanShareNum {
			return "", false
		}
		return fmt.Sprintf("collection scan preferred: the index bounds hold about %d%% of index %s (over %d/%d, estimated from its on-disk size)",
			min(100, part*100/total), scan.Index.Name, collScanShareNum, collScanShareDen), true
	}
	n := c.state.docCount.Load()
	if n < MinCollScanPreferDocs {
		return "", false
	}
	need := n*collScanShareNum/collScanShareDen + 1
	k, err := countKeys(r, scan, need)
	if err != nil || k < need {
		return "", false
	}
	return fmt.Sprintf("collection scan preferred: the index bounds hold more than %d of the collection's %d documents (over %d/%d)",
		need-1, n, collScanShareNum, collScanShareDen), true
}

// replaceableScan returns the IXSCAN of a FETCH > IXSCAN candidate that
// nothing but its bounds ties to the index, or nil.
func replaceableScan(s *plan.Solution, q planReq) *plan.Node {
	if s.Covered || s.CoveredProjection || s.HitScanLimit || (q.sort != nil && !s.BlockingSort) {
		return nil
	}
	f := s.Root
	if f == nil || f.Stage != plan.StageFetch || len(f.Children) != 1 {
		return nil
	}
	scan := f.Children[0]
	if scan.Stage != plan.StageIxScan || scan.Index == nil || scan.Index.Multikey {
		return nil
	}
	if allPoints(scan.Bounds) {
		// Equality and $in: usually selective, and the estimate would cost
		// every such query tens of microseconds. Only ranges are weighed.
		return nil
	}
	return scan
}

func allPoints(fields []plan.FieldBounds) bool {
	for _, f := range fields {
		if !f.OIL.AllPoints() {
			return false
		}
	}
	return true
}

// countKeys counts the entries within scan's bounds, up to limit.
func countKeys(r storage.Reader, scan *plan.Node, limit int64) (int64, error) {
	ix := exec.NewIxScan(r, scan.Index, scan.Bounds, 1, false, false)
	defer ix.Close()
	var n int64
	for n < limit {
		st, _, err := ix.Work()
		if err != nil {
			return n, err
		}
		switch st {
		case exec.Advanced:
			n++
		case exec.EOF:
			return n, nil
		}
	}
	return n, nil
}
