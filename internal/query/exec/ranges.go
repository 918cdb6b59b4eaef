package exec

import (
	"bytes"
	"sort"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/plan"
)

// maxRanges bounds the number of byte ranges an index scan enumerates from
// the product of point fields; later fields are then checked per key.
const maxRanges = 4096

// keyRange is a byte range [start, end) of keystrings (nil end: no limit).
type keyRange struct{ start, end []byte }

// fieldCheck tests field pos of each key against its intervals' byte
// ranges (single-field encodings).
type fieldCheck struct {
	pos    int
	ranges []keyRange
}

// scanPlan is how an IXSCAN visits its bounds: ranges in index order and
// checks for the fields the ranges do not constrain.
type scanPlan struct {
	ranges []keyRange
	checks []fieldCheck
	// prefixFields is the number of leading fields fixed to one point in
	// every range (their bytes form a common prefix of each range).
	prefixLen int
}

// buildScanPlan turns per-field bounds into byte ranges.
func buildScanPlan(fields []plan.FieldBounds) scanPlan {
	var sp scanPlan
	prefixes := [][]byte{nil}
	m := 0
	for ; m < len(fields); m++ {
		o := fields[m].OIL
		if !o.AllPoints() || len(prefixes)*len(o) > maxRanges {
			break
		}
		{
			var next [][]byte
			for _, p := range prefixes {
				for _, iv := range o {
					next = append(next, keystring.AppendValue(append([]byte(nil), p...), iv.Lo, fields[m].Desc))
				}
			}
			prefixes = next
		}
	}
	if len(prefixes) == 1 {
		sp.prefixLen = len(prefixes[0])
	}
	if m == len(fields) {
		for _, p := range prefixes {
			sp.ranges = append(sp.ranges, keyRange{p, keystring.PrefixEnd(p)})
		}
	} else {
		f := fields[m]
		if len(prefixes)*len(f.OIL) > maxRanges && len(prefixes) > 1 {
			// Too many: scan the prefixes only, check field m per key.
			for _, p := range prefixes {
				sp.ranges = append(sp.ranges, keyRange{p, keystring.PrefixEnd(p)})
			}
			m--
		} else {
			for _, p := range prefixes {
				for _, iv := range f.OIL {
					s, e := keystring.Interval(p, iv.Lo, iv.Hi, iv.LoInc, iv.HiInc, f.Desc)
					if e != nil && bytes.Compare(s, e) >= 0 {
						continue
					}
					sp.ranges = append(sp.ranges, keyRange{s, e})
				}
			}
		}
		for j := m + 1; j < len(fields); j++ {
			if fields[j].OIL.IsFull() {
				continue
			}
			fc := fieldCheck{pos: j}
			for _, iv := range fields[j].OIL {
				s, e := keystring.Interval(nil, iv.Lo, iv.Hi, iv.LoInc, iv.HiInc, fields[j].Desc)
				fc.ranges = append(fc.ranges, keyRange{s, e})
			}
			sp.checks = append(sp.checks, fc)
		}
	}
	sort.Slice(sp.ranges, func(i, j int) bool { return bytes.Compare(sp.ranges[i].start, sp.ranges[j].start) < 0 })
	if len(sp.ranges) == 1 && len(sp.ranges[0].start) == 0 {
		sp.ranges[0].start = nil
	}
	return sp
}

// passes reports whether key satisfies the checks. dirs are the field
// directions of the index.
func (sp *scanPlan) passes(key []byte, dirs []bool) bool {
	if len(sp.checks) == 0 {
		return true
	}
	rest := key
	field := 0
	for _, c := range sp.checks {
		for field < c.pos {
			_, r, err := keystring.DecodePrefix(rest, dirs[field:field+1], nil)
			if err != nil {
				return false
			}
			rest = r
			field++
		}
		_, r, err := keystring.DecodePrefix(rest, dirs[field:field+1], nil)
		if err != nil {
			return false
		}
		seg := rest[:len(rest)-len(r)]
		ok := false
		for _, kr := range c.ranges {
			if bytes.Compare(seg, kr.start) >= 0 && (kr.end == nil || bytes.Compare(seg, kr.end) < 0) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
		rest = r
		field++
	}
	return true
}

// ScanRanges returns the keystring ranges [start, end) an IXSCAN with
// these bounds reads, in index order (a nil start is the index's start,
// a nil end its end). The planner uses them to estimate how much of an
// index a scan covers.
func ScanRanges(fields []plan.FieldBounds) (starts, ends [][]byte) {
	sp := buildScanPlan(fields)
	for _, r := range sp.ranges {
		starts = append(starts, r.start)
		ends = append(ends, r.end)
	}
	return starts, ends
}

// BoundsChecker answers, for the keystrings of one index, what an IXSCAN
// with given bounds does with them: whether the scan reads the key (it
// lies in one of the scan's byte ranges, so it counts as examined) and
// whether the key passes the per-field checks (so the scan returns it).
// The index advisor uses it to count the keys of a hypothetical index
// that a plan would examine (engine/whatif.go).
type BoundsChecker struct {
	sp   scanPlan
	dirs []bool
}

// NewBoundsChecker returns the checker of an IXSCAN over fields.
func NewBoundsChecker(fields []plan.FieldBounds) *BoundsChecker {
	dirs := make([]bool, len(fields))
	for i, f := range fields {
		dirs[i] = f.Desc
	}
	return &BoundsChecker{sp: buildScanPlan(fields), dirs: dirs}
}

// Check reports whether the scan reads key and whether it returns it.
func (b *BoundsChecker) Check(key []byte) (read, passes bool) {
	for _, r := range b.sp.ranges {
		if (r.start == nil || bytes.Compare(key, r.start) >= 0) && (r.end == nil || bytes.Compare(key, r.end) < 0) {
			return true, b.sp.passes(key, b.dirs)
		}
	}
	return false, false
}

// PrefixLen is the length of the key prefix that every range shares when
// the leading fields are single points (0 otherwise): under SORT_MERGE the
// bytes after it order the keys of different scans.
func (b *BoundsChecker) PrefixLen() int { return b.sp.prefixLen }
