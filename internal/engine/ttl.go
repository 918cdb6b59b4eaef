package engine

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/storage"
)

// DefaultTTLMonitorSleep is MongoDB's default ttlMonitorSleepSecs.
const DefaultTTLMonitorSleep = 60 * time.Second

// ttlBatch is how many expired documents one critical section removes.
const ttlBatch = 500

// TTLStats are the counters serverStatus reports as metrics.ttl.
type TTLStats struct {
	// Passes is the number of completed monitor passes.
	Passes int64
	// DeletedDocuments is the number of documents the monitor removed.
	DeletedDocuments int64
}

// ttlMonitor is the background task that removes expired documents.
type ttlMonitor struct {
	interval atomic.Int64 // nanoseconds
	wake     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	passes   atomic.Int64
	deleted  atomic.Int64
}

// startTTL starts the TTL monitor with the given interval (zero means the
// default).
func (e *Engine) startTTL(interval time.Duration) {
	if interval <= 0 {
		interval = DefaultTTLMonitorSleep
	}
	m := &e.ttl
	m.interval.Store(int64(interval))
	m.wake = make(chan struct{}, 1)
	m.stop = make(chan struct{})
	m.done = make(chan struct{})
	go e.ttlLoop()
}

// stopTTL stops the monitor and waits for a running pass to end.
func (e *Engine) stopTTL() {
	if e.ttl.stop == nil {
		return
	}
	close(e.ttl.stop)
	<-e.ttl.done
}

// SetTTLMonitorSleep changes the monitor interval at run time (setParameter
// ttlMonitorSleepSecs). The new interval applies from now.
func (e *Engine) SetTTLMonitorSleep(d time.Duration) {
	if d <= 0 {
		d = DefaultTTLMonitorSleep
	}
	e.ttl.interval.Store(int64(d))
	select {
	case e.ttl.wake <- struct{}{}:
	default:
	}
}

// TTLMonitorSleep returns the current monitor interval.
func (e *Engine) TTLMonitorSleep() time.Duration { return time.Duration(e.ttl.interval.Load()) }

// TTLStats returns the monitor's counters.
func (e *Engine) TTLStats() TTLStats {
	return TTLStats{Passes: e.ttl.passes.Load(), DeletedDocuments: e.ttl.deleted.Load()}
}

func (e *Engine) ttlLoop() {
	defer close(e.ttl.done)
	for {
		t := time.NewTimer(time.Duration(e.ttl.interval.Load()))
		select {
		case <-e.ttl.stop:
			t.Stop()
			return
		case <-e.ttl.wake:
			t.Stop()
			continue // restart the timer with the new interval
		case <-t.C:
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-e.ttl.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		if _, err := e.RunTTLPass(ctx, time.Now()); err != nil && ctx.Err() == nil {
			e.log.Error("TTL pass failed", "err", err)
		}
		cancel()
	}
}

// RunTTLPass removes, from every collection with a TTL index, the
// documents whose indexed date is before now minus expireAfterSeconds
// (for an array, its earliest date; non-date values never expire). It
// reads candidates from the TTL index's key range of dates, never a
// collection scan. It returns how many documents it removed.
func (e *Engine) RunTTLPass(ctx context.Context, now time.Time) (int64, error) {
	var total int64
	cat := e.cat.Load()
	for _, db := range cat.sortedDBNames() {
		for _, c := range cat.dbs[db] {
			if c.Capped {
				continue
			}
			if c.Clustered && c.ExpireAfter != nil {
				// expireAfterSeconds on the clustered key: the records
				// whose _id is an old enough date.
				n, err := e.expireIndex(ctx, c, c.Indexes[0], *c.ExpireAfter, now)
				total += n
				if err != nil {
					return total, fmt.Errorf("TTL %s.%s clustered index: %w", c.DB, c.Name, err)
				}
			}
			for _, ix := range c.Indexes {
				if ix.TTL == nil || len(ix.Fields) != 1 || ix.IsID() {
					continue
				}
				n, err := e.expireIndex(ctx, c, ix, *ix.TTL, now)
				total += n
				if err != nil {
					return total, fmt.Errorf("TTL %s.%s index %s: %w", c.DB, c.Name, ix.Name, err)
				}
			}
		}
	}
	e.ttl.passes.Add(1)
	return total, nil
}

// ttlRange returns the keystring range of ix's dates before cutoff.
func ttlRange(ix *index, cutoff time.Time) (lo, hi []byte) {
	minDate := bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, math.MinInt64)}
	cut := bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, cutoff.UnixMilli())}
	desc := ix.Fields[0].Desc
	if desc {
		return keystring.Interval(nil, cut, minDate, false, true, true)
	}
	return keystring.Interval(nil, minDate, cut, true, false, false)
}

// expireIndex removes the expired documents of one TTL index, in batches
// that each hold the collection's writer lock briefly.
func (e *Engine) expireIndex(ctx context.Context, c *collection, ix *index, secs int64, now time.Time) (int64, error) {
	cutoff := now.Add(-time.Duration(secs) * time.Second)
	lo, hi := ttlRange(ix, cutoff)
	if o := timeseriesOf(c); o != nil && ix.Clustered {
		lo, hi = bucketsTTLRange(o, cutoff) // timeseries.go
	}
	if hi != nil && string(lo) >= string(hi) {
		return 0, nil
	}
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		rids, err := e.ttlCandidates(c, ix, lo, hi)
		if err != nil || len(rids) == 0 {
			return total, err
		}
		n, more, err := e.ttlRemove(ctx, c, ix, rids, lo, hi)
		total += n
		e.ttl.deleted.Add(n)
		if err != nil || !more {
			return total, err
		}
	}
}

// ttlCand is a record the TTL monitor may remove: its id and, in a
// clustered collection, its cluster key.
type ttlCand struct {
	rid uint64
	ck  []byte
}

// ttlCandidates reads up to ttlBatch distinct records from the index
// range [lo, hi): of ix's entries, or of the records themselves when ix
// is the clustered index.
func (e *Engine) ttlCandidates(c *collection, ix *index, lo, hi []byte) ([]ttlCand, error) {
	var out []ttlCand
	if ix.Clustered {
		var rc storage.RecordCursor
		if err := rc.OpenClustered(e.db.Reader(), c.ID, lo, hi, false); err != nil {
			return nil, err
		}
		defer rc.Close()
		for rid, _, ok := rc.Next(); ok && len(out) < ttlBatch; rid, _, ok = rc.Next() {
			out = append(out, ttlCand{rid: uint64(rid), ck: append([]byte(nil), rc.Key()...)})
		}
		return out, rc.Err()
	}
	cur, err := storage.NewIndexCursor(e.db.Reader(), ix.ID, lo, hi, false)
	if err != nil {
		return nil, err
	}
	if ix.InClustered {
		cur.SetClustered()
	}
	defer cur.Close()
	seen := map[uint64]struct{}{}
	for _, rid, _, ok := cur.Next(); ok && len(out) < ttlBatch; _, rid, _, ok = cur.Next() {
		if _, dup := seen[rid]; dup {
			continue
		}
		seen[rid] = struct{}{}
		cand := ttlCand{rid: rid}
		if ix.InClustered {
			cand.ck = append([]byte(nil), cur.RecordKey()...)
		}
		out = append(out, cand)
	}
	return out, cur.Err()
}

// ttlRemove removes the candidates that are still expired under the
// writer lock. more reports whether a full batch was found (so another
// may follow).
func (e *Engine) ttlRemove(ctx context.Context, c *collection, ix *index, rids []ttlCand, lo, hi []byte) (int64, bool, error) {
	lc, err := e.lockColl(c.DB, c.Name, false)
	if err != nil || lc == nil {
		return 0, false, err
	}
	defer lc.state.mu.Unlock()
	if lc.state != c.state {
		return 0, false, nil
	}
	cur := lc.IndexByName(ix.Name)
	if cur == nil || cur.ID != ix.ID || cur.TTL == nil && !(cur.Clustered && lc.ExpireAfter != nil) {
		return 0, false, nil
	}
	t := e.newWriteBatch(lc)
	defer t.abort()
	var g indexkey.Generator
	var buf []byte
	var n int64
	for _, cand := range rids {
		var found bool
		var rid uint64
		buf, rid, found, err = getRecordRef(e.db.Reader(), lc, cand.rid, cand.ck, buf[:0])
		if err != nil {
			return n, false, err
		}
		if !found {
			continue
		}
		keys, _, skip, err := g.Keys(cur, buf)
		if err != nil || skip {
			continue
		}
		expired := false
		for _, k := range keys {
			if string(k) >= string(lo) && (hi == nil || string(k) < string(hi)) {
				expired = true
				break
			}
		}
		if !expired {
			continue
		}
		doc := append(bsoncore.Document(nil), buf...)
		if err := t.remove(rid, doc); err != nil {
			return n, false, err
		}
		n++
	}
	if err := t.commit(); err != nil {
		return 0, false, err
	}
	return n, len(rids) == ttlBatch && n > 0, nil
}
