package exec

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/internal/query"
)

// DefaultSortMemLimit is MongoDB's internalQueryMaxBlockingSortMemoryUsageBytes.
const DefaultSortMemLimit = 100 << 20

// sortEntry is one buffered result.
type sortEntry struct {
	key query.SortKey
	m   Member
}

// Sort is SORT: a blocking sort of its input. It keeps at most limit
// results when limited (a top-k sort); beyond memLimit bytes it fails with
// error 292 unless allowDiskUse, in which case it spills sorted runs to
// temporary files and merges them.
type Sort struct {
	base
	spec         *query.Sort
	pattern      bsoncore.Document
	limit        int64
	memLimit     int64
	allowDiskUse bool
	spillDir     string
	cmdName      string

	buf      []sortEntry
	bufBytes int64
	// cut is, once a limited sort has trimmed its buffer, the last entry
	// it kept: an input that does not sort before it cannot be among the
	// first limit (a tie arrived later, and the sort is stable).
	cut    sortEntry
	hasCut bool
	runs   []*spillRun
	sorted bool
	out    []sortEntry
	merger *runMerger
	m      Member

	totalDataSize int64
	spills        int64

	// res is the buffer's share of the instance's memory budget.
	res membudget.Reservation
}

// SortOptions configures a SORT stage.
type SortOptions struct {
	Limit        int64 // 0 = none
	MemLimit     int64 // 0 = DefaultSortMemLimit
	AllowDiskUse bool
	SpillDir     string // "" = os.TempDir()
	// Budget is the instance's memory budget the buffer draws on past
	// membudget.Floor (nil: none).
	Budget *membudget.Budget
	// Command names the command in the memory-limit error ("find").
	Command string
}

// NewSort returns a SORT over child.
func NewSort(child Stage, spec *query.Sort, pattern bsoncore.Document, o SortOptions, timing bool) *Sort {
	if o.MemLimit <= 0 {
		o.MemLimit = DefaultSortMemLimit
	}
	if o.Command == "" {
		o.Command = "find"
	}
	s := &Sort{spec: spec, pattern: pattern, limit: o.Limit, memLimit: o.MemLimit,
		allowDiskUse: o.AllowDiskUse, spillDir: o.SpillDir, cmdName: o.Command, res: membudget.For(o.Budget)}
	s.children = []Stage{child}
	s.timing = timing
	return s
}

// Name implements Stage.
func (s *Sort) Name() string { return "SORT" }

// Work implements Stage.
func (s *Sort) Work() (State, *Member, error) {
	start := s.now()
	st, m, err := s.work()
	s.record(st, start)
	return st, m, err
}

func (s *Sort) less(a, b *sortEntry) bool { return s.spec.CompareKeys(a.key, b.key) < 0 }

func (s *Sort) work() (State, *Member, error) {
	if !s.sorted {
		st, in, err := s.children[0].Work()
		if err != nil {
			return EOF, nil, err
		}
		switch st {
		case Advanced:
			e := sortEntry{key: s.spec.KeyScore(in.Doc, in.Score), m: Member{RID: in.RID, Doc: in.Doc, Pos: in.Pos, Score: in.Score}}
			size := int64(len(in.Doc)) + 32
			s.totalDataSize += size
			if s.hasCut && !s.less(&e, &s.cut) {
				return NeedTime, nil, nil
			}
			s.buf = append(s.buf, e)
			s.bufBytes += size
			if s.limit > 0 && int64(len(s.buf)) >= 2*s.limit+64 {
				s.trim()
			}
			// Past membudget.Floor the buffer must fit the instance's budget
			// too; below it (so that spilling always makes progress) not.
			if over := s.bufBytes > s.memLimit; over || s.bufBytes > membudget.Floor && !s.res.Grow(s.bufBytes) {
				if !s.allowDiskUse {
					if !over {
						return EOF, nil, errs.New(errs.QueryExceededMemoryLimitNoDiskUseAllowed,
							"Executor error during %s command :: caused by :: Sort exceeded the server's memory budget (%d bytes in use of %d), but did not opt in to external sorting.", s.cmdName, s.res.Budget().Used(), s.res.Budget().Limit())
					}
					return EOF, nil, errs.New(errs.QueryExceededMemoryLimitNoDiskUseAllowed,
						"Executor error during %s command :: caused by :: Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", s.cmdName, s.memLimit)
				}
				if err := s.spill(); err != nil {
					return EOF, nil, err
				}
			}
			return NeedTime, nil, nil
		case NeedTime:
			return NeedTime, nil, nil
		}
		s.sorted = true
		s.sortBuf()
		if s.limit > 0 && int64(len(s.buf)) > s.limit {
			s.buf = s.buf[:s.limit]
		}
		if len(s.runs) > 0 {
			m, err := newRunMerger(s.runs, s.buf, s.spec)
			if err != nil {
				return EOF, nil, err
			}
			s.merger = m
			s.buf = nil
		} else {
			s.out = s.buf
			s.buf = nil
		}
		return NeedTime, nil, nil
	}
	if s.merger != nil {
		if s.limit > 0 && s.stats.Advanced >= s.limit {
			return EOF, nil, nil
		}
		e, ok, err := s.merger.next()
		if err != nil || !ok {
			return EOF, nil, err
		}
		s.m = e.m
		return Advanced, &s.m, nil
	}
	if len(s.out) == 0 {
		return EOF, nil, nil
	}
	s.m = s.out[0].m
	s.out[0] = sortEntry{}
	s.out = s.out[1:]
	return Advanced, &s.m, nil
}

func (s *Sort) sortBuf() {
	sort.SliceStable(s.buf, func(i, j int) bool { return s.less(&s.buf[i], &s.buf[j]) })
}

// trim keeps the best limit entries of the buffer.
func (s *Sort) trim() {
	s.sortBuf()
	for i := s.limit; i < int64(len(s.buf)); i++ {
		s.bufBytes -= int64(len(s.buf[i].m.Doc)) + 32
		s.buf[i] = sortEntry{}
	}
	s.buf = s.buf[:s.limit]
	s.cut, s.hasCut = s.buf[s.limit-1], true
}

// spill writes the sorted buffer to a temporary run file.
func (s *Sort) spill() error {
	s.sortBuf()
	run, err := writeRun(s.spillDir, s.buf)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, run)
	s.spills++
	clear(s.buf)
	s.buf = s.buf[:0]
	s.bufBytes = 0
	s.res.Release()
	return nil
}

// Close implements Stage.
func (s *Sort) Close() {
	s.res.Release()
	s.closeChildren()
	for _, r := range s.runs {
		r.close()
	}
	s.runs = nil
}

func (s *Sort) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	b.AppendDocument("sortPattern", s.pattern).
		AppendInt64("memLimit", s.memLimit)
	if s.limit > 0 {
		b.AppendInt64("limitAmount", s.limit)
	}
	b.AppendString("type", "simple")
	if execStats {
		b.AppendInt64("totalDataSizeSorted", s.totalDataSize).
			AppendBoolean("usedDisk", s.spills > 0).
			AppendInt64("spills", s.spills)
	}
}
