package oplog

import "sync"

// visibility tracks the reservations of batches that have timestamps but
// have not finished committing. Batches commit concurrently, so entry 7
// may be in the database before entry 6; a reader must not pass 6 until
// its batch has committed or failed. visible is the newest timestamp with
// no open reservation at or below it.
type visibility struct {
	mu      sync.Mutex
	open    []reservation // in timestamp order (reserved under the clock)
	visible TS
	// changed is closed when visible moves; nil until a reader asks for
	// it (Log.Visible), so a commit nobody waits on allocates no channel.
	changed chan struct{}
}

type reservation struct {
	first, last TS
	done        bool
}

func (v *visibility) init(t TS) {
	v.visible = t
}

// add records a reservation. The caller holds the clock's lock, so
// reservations arrive in timestamp order.
func (v *visibility) add(first, last TS) {
	v.mu.Lock()
	v.open = append(v.open, reservation{first: first, last: last})
	v.mu.Unlock()
}

// end marks the reservation starting at first as finished and advances
// visible past every finished reservation at the front.
func (v *visibility) end(first TS) {
	v.mu.Lock()
	for i := range v.open {
		if v.open[i].first == first {
			v.open[i].done = true
			break
		}
	}
	n := 0
	for n < len(v.open) && v.open[n].done {
		v.visible = v.open[n].last
		n++
	}
	if n > 0 {
		v.open = append(v.open[:0], v.open[n:]...)
		if v.changed != nil {
			close(v.changed)
			v.changed = nil
		}
	}
	v.mu.Unlock()
}
