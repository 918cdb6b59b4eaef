package oplog

import (
	"encoding/binary"
	"fmt"

	"github.com/lodedb/lode/internal/storage"
)

// chunks divide the log into runs of about size bytes, oldest first, like
// mongod's oplog truncate markers: trimming deletes whole chunks, with one
// range deletion each, and never has to read the entries it removes.
type chunks struct {
	size int64
	full []chunk // closed chunks, oldest first
	cur  chunk   // the chunk being filled
}

type chunk struct {
	last  TS // newest timestamp in the chunk
	bytes int64
	n     int64
}

// chunkSize is a sixteenth of the bound, at least 64 KiB: trimming
// keeps the log within its bound and at least 15/16 full.
func chunkSize(bound int64) int64 {
	return max(bound/16, 64<<10)
}

// add counts a committed run of entries.
func (c *chunks) add(_, last TS, bytes, n int64) {
	if last > c.cur.last {
		c.cur.last = last
	}
	c.cur.bytes += bytes
	c.cur.n += n
	if c.cur.bytes >= c.size {
		c.full = append(c.full, c.cur)
		c.cur = chunk{}
	}
}

// trim deletes the oldest chunks while the log is over its bound. When
// the entries of the newest chunk alone exceed it, that chunk goes too:
// the bound holds, and the log is briefly shorter than it could be.
func (l *Log) trim() {
	l.trimMu.Lock()
	defer l.trimMu.Unlock()
	for l.size.Load() > l.max.Load() {
		var c chunk
		switch {
		case len(l.chunks.full) > 0:
			c = l.chunks.full[0]
			l.chunks.full = l.chunks.full[1:]
		case l.chunks.cur.n > 0:
			c = l.chunks.cur
			l.chunks.cur = chunk{}
		default:
			return
		}
		if err := l.deleteThrough(c.last); err != nil {
			l.chunks.full = append([]chunk{c}, l.chunks.full...)
			return
		}
		l.size.Add(-c.bytes)
		l.n.Add(-c.n)
	}
}

// deleteThrough removes every entry at or before ts.
func (l *Log) deleteThrough(ts TS) error {
	b := l.db.NewBatch()
	if err := storage.DeleteOplogThrough(b, uint64(ts)); err != nil {
		b.Close()
		return fmt.Errorf("oplog: trim: %w", err)
	}
	if err := storage.SetMeta(b, trimmedMeta, binary.BigEndian.AppendUint64(nil, uint64(ts))); err != nil {
		b.Close()
		return fmt.Errorf("oplog: trim: %w", err)
	}
	if _, err := l.db.Commit(b); err != nil {
		return fmt.Errorf("oplog: trim: %w", err)
	}
	l.trimmed.Store(uint64(ts))
	return nil
}

// Resize changes the bound (replSetResizeOplog) and trims to it.
func (l *Log) Resize(maxBytes int64) {
	l.max.Store(maxBytes)
	l.trimMu.Lock()
	l.chunks.size = chunkSize(maxBytes)
	l.trimMu.Unlock()
	l.trim()
}

// trimmedMeta names the metadata value that keeps Trimmed across
// restarts.
const trimmedMeta = "oplog.trimmed"

// Trimmed is the newest timestamp ever removed by trimming (0: none). A reader positioned at or before it has lost history.
func (l *Log) Trimmed() TS { return TS(l.trimmed.Load()) }
