package exec

import (
	"encoding/binary"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// AndSorted is AND_SORTED: the intersection of index scans that each
// return record ids in ascending order (every field bounded to one
// point, so each scan reads entries of one keystring, ordered by record
// id). It leapfrogs: the scan behind seeks to the record id the others
// agree on, so a short list intersected with a long one reads about two
// keys per id of the short list, not the whole long list.
type AndSorted struct {
	base
	kids   []*IxScan
	last   []uint64 // record id each scan returned last
	has    []bool   // the scan has returned an id
	target uint64   // the smallest id still wanted
	agree  int      // scans standing on target
	turn   int      // the scan to move next
	done   bool
	m      Member
	failed []int64 // failedAnd_i: ids of scan i not in every scan
	kbuf   []byte
}

// andStepBudget bounds the scan steps one Work call takes without a
// result, so long intersections stay interruptible.
const andStepBudget = 256

// NewAndSorted returns an AND_SORTED over kids, each a forward IXSCAN of
// one point range.
func NewAndSorted(kids []*IxScan, timing bool) *AndSorted {
	a := &AndSorted{kids: kids, last: make([]uint64, len(kids)), has: make([]bool, len(kids)), failed: make([]int64, len(kids))}
	for _, k := range kids {
		a.children = append(a.children, k)
	}
	a.timing = timing
	return a
}

// Name implements Stage.
func (a *AndSorted) Name() string { return "AND_SORTED" }

// Work implements Stage.
func (a *AndSorted) Work() (State, *Member, error) {
	start := a.now()
	st, m, err := a.work()
	a.record(st, start)
	return st, m, err
}

func (a *AndSorted) work() (State, *Member, error) {
	if a.done {
		return EOF, nil, nil
	}
	n := len(a.kids)
	for steps := 0; steps < andStepBudget; steps++ {
		i := a.turn
		if !a.has[i] || a.last[i] < a.target {
			st, rid, err := a.advance(i)
			if err != nil || st == EOF {
				a.done = true
				return EOF, nil, err
			}
			if st == NeedTime {
				continue
			}
			a.last[i], a.has[i] = rid, true
		}
		switch {
		case a.last[i] == a.target:
			a.agree++
		default: // past the target: the others must catch up
			for j := range a.kids {
				if j != i && a.has[j] && a.last[j] == a.target {
					a.failed[j]++ // its id is in no intersection
				}
			}
			a.target, a.agree = a.last[i], 1
		}
		a.turn = (i + 1) % n
		if a.agree == n {
			a.m = Member{RID: a.target, Pos: -1}
			a.target++
			a.agree = 0
			return Advanced, &a.m, nil
		}
	}
	return NeedTime, nil, nil
}

// advance moves scan i to its first entry whose record id is at least
// the target: a seek when it already stands in its range, its first
// entry otherwise.
func (a *AndSorted) advance(i int) (State, uint64, error) {
	k := a.kids[i]
	for {
		if k.cur != nil && a.target > 0 && len(k.sp.ranges) == 1 {
			// Always a seek, never a step: a forward seek right after a
			// seek lets Pebble try stepping to the target first
			// (TrySeekUsingNext), which a Next in between would rule out.
			a.kbuf = binary.BigEndian.AppendUint64(append(a.kbuf[:0], k.sp.ranges[0].start...), a.target)
			k.cur.SeekGE(a.kbuf)
			k.seeks++
		}
		st, m, err := k.Work()
		if err != nil || st == EOF {
			return EOF, 0, err
		}
		if st == NeedTime {
			return NeedTime, 0, nil
		}
		if m.RID >= a.target {
			return Advanced, m.RID, nil
		}
		// Below the target on the scan's first entry (its range was just
		// opened): the loop seeks from here.
	}
}

// Close implements Stage.
func (a *AndSorted) Close() { a.closeChildren() }

func (a *AndSorted) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		for i, f := range a.failed {
			b.AppendInt64("failedAnd_"+strconv.Itoa(i), f)
		}
	}
}
