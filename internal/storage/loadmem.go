package storage

import (
	"sync"
	"time"
)

// loadMem keeps the memory of finished sorted loads for the next one.
// An index build's entry table and arena are tens of megabytes each;
// allocating them afresh for each build of a createIndexes sequence cost
// zeroing and page faults (12% of three index builds over 2M events),
// the same memory the build before had just let go. What is kept is
// dropped once no load has taken or returned any for loadMemIdle.
type loadMem struct {
	mu     sync.Mutex
	ents   [][]sortEntry // at most maxSpareEnts tables
	chunks [][]byte      // arena chunks, at most budget bytes
	idle   *time.Timer
}

// loadMemIdle is how long kept memory outlives the last load that used it.
const loadMemIdle = 5 * time.Second

// maxSpareEnts bounds the entry tables kept: a load uses two at most
// (its table and the sort's output).
const maxSpareEnts = 2

// takeEnts returns an empty entry table with room for n entries, or nil.
func (m *loadMem) takeEnts(n int) []sortEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.ents {
		if cap(e) >= n {
			m.ents = append(m.ents[:i], m.ents[i+1:]...)
			m.touch()
			return e[:0]
		}
	}
	return nil
}

// takeChunk returns an empty arena chunk, or nil.
func (m *loadMem) takeChunk() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.chunks) == 0 {
		return nil
	}
	c := m.chunks[len(m.chunks)-1]
	m.chunks = m.chunks[:len(m.chunks)-1]
	m.touch()
	return c[:0]
}

// give keeps an entry table and arena chunks no load uses any more.
func (m *loadMem) give(ents []sortEntry, chunks [][]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cap(ents) > 0 {
		if len(m.ents) < maxSpareEnts {
			m.ents = append(m.ents, ents)
		} else if i := smallestEnts(m.ents); cap(m.ents[i]) < cap(ents) {
			m.ents[i] = ents
		}
	}
	for _, c := range chunks {
		if cap(c) == chunkSize && len(m.chunks)*chunkSize < DefaultSortBudget {
			m.chunks = append(m.chunks, c)
		}
	}
	m.touch()
}

func smallestEnts(t [][]sortEntry) int {
	s := 0
	for i := range t {
		if cap(t[i]) < cap(t[s]) {
			s = i
		}
	}
	return s
}

// touch (re)arms the idle timer; m.mu is held.
func (m *loadMem) touch() {
	if m.idle == nil {
		m.idle = time.AfterFunc(loadMemIdle, m.drop)
		return
	}
	m.idle.Reset(loadMemIdle)
}

// drop lets the kept memory go.
func (m *loadMem) drop() {
	m.mu.Lock()
	m.ents, m.chunks = nil, nil
	if m.idle != nil {
		m.idle.Stop()
		m.idle = nil
	}
	m.mu.Unlock()
}
