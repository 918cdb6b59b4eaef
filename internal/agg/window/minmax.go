package window

import (
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// minMaxFunc is the removable $min (dir -1) and $max (dir 1): a monotonic
// deque of the window's candidates, so each document is pushed and popped
// at most once (amortized O(1)). Null and missing values are skipped; an
// empty window gives null.
type minMaxFunc struct {
	inputFunc
	dir      int
	cands    []cand
	head     int
	added    int64
	removed  int64
	candsMem int64
}

type cand struct {
	seq int64
	v   bsoncore.Value
}

func (m *minMaxFunc) Add(doc bsoncore.Document) error {
	v, err := m.input(doc)
	if err != nil {
		return err
	}
	seq := m.added
	m.added++
	if expr.IsNullish(v) {
		return nil
	}
	// Drop candidates the new value beats: they leave the window first
	// and can never be the answer again.
	for len(m.cands) > m.head && expr.CompareWith(m.f.Collator(), m.cands[len(m.cands)-1].v, v)*m.dir <= 0 {
		m.candsMem -= valueOverhead + int64(len(m.cands[len(m.cands)-1].v.Data))
		m.cands = m.cands[:len(m.cands)-1]
	}
	if !m.keep && len(m.cands) > m.head {
		// Nothing leaves the window: only the best value matters.
		return nil
	}
	c := bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
	m.cands = append(m.cands, cand{seq: seq, v: c})
	m.candsMem += valueOverhead + int64(len(c.Data))
	return nil
}

func (m *minMaxFunc) Remove() error {
	if len(m.cands) > m.head && m.cands[m.head].seq == m.removed {
		m.candsMem -= valueOverhead + int64(len(m.cands[m.head].v.Data))
		m.cands[m.head] = cand{}
		m.head++
		if m.head > 64 && m.head*2 > len(m.cands) {
			n := copy(m.cands, m.cands[m.head:])
			m.cands, m.head = m.cands[:n], 0
		}
	}
	m.removed++
	return nil
}

func (m *minMaxFunc) Result(int64) (bsoncore.Value, error) {
	if len(m.cands) == m.head {
		return expr.Null, nil
	}
	return m.cands[m.head].v, nil
}

func (m *minMaxFunc) MemUsage() int64 { return m.candsMem + int64(cap(m.cands))*32 }

// firstLastFunc is $first and $last over a window: the front or back of
// the window's values; missing is null, and so is an empty window.
type firstLastFunc struct {
	inputFunc
	first bool
}

func (f *firstLastFunc) Add(doc bsoncore.Document) error {
	v, err := f.input(doc)
	if err != nil {
		return err
	}
	if v.Type == 0 {
		v = expr.Null
	}
	if !f.keep && f.q.len() > 0 {
		// Nothing leaves the window: keep only the first or the last.
		if f.first {
			return nil
		}
		f.q.pop()
	}
	f.q.push(v)
	return nil
}

func (f *firstLastFunc) Remove() error { f.q.pop(); return nil }

func (f *firstLastFunc) Result(int64) (bsoncore.Value, error) {
	if f.q.len() == 0 {
		return expr.Null, nil
	}
	if f.first {
		return f.q.front(), nil
	}
	return f.q.back(), nil
}

func (f *firstLastFunc) MemUsage() int64 { return f.q.memUsage() }

// pushFunc is $push over a window: the window's values, missing skipped.
type pushFunc struct{ inputFunc }

func (p *pushFunc) Add(doc bsoncore.Document) error {
	v, err := p.input(doc)
	if err != nil {
		return err
	}
	p.q.push(v)
	if p.f.MaxBytes > 0 && p.q.mem > p.f.MaxBytes {
		return pushLimitError(p.f.Name, p.f.MaxBytes)
	}
	return nil
}

func (p *pushFunc) Remove() error { p.q.pop(); return nil }

func (p *pushFunc) Result(int64) (bsoncore.Value, error) {
	out := make([]bsoncore.Value, 0, p.q.len())
	for _, v := range p.q.items() {
		if v.Type != 0 {
			out = append(out, v)
		}
	}
	return expr.Array(out...), nil
}

func (p *pushFunc) MemUsage() int64 { return p.q.memUsage() }
