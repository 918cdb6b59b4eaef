package storage

import (
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// A lone j:true writer's log writes bypass the page cache.
//
// A j:true commit writes its batch to the log and syncs it. Written
// through the page cache, the bytes are copied into a page, the page is
// marked dirty, and the fdatasync that follows finds it, builds the
// request and submits it. Written with O_DIRECT, the request goes from
// the buffer at once and the fdatasync only flushes the device's cache.
// On the 2-core PVM guest a 200-byte write and its fdatasync cost about
// 15 us less CPU that way (docs/benchmarks.md, "Issue 33: a lone j:true
// writer's log writes without the page cache").
//
// A write is only worth sending directly when a sync follows it, and the
// log's writer (Pebble's flush loop) does not say so: it writes, then
// syncs if a commit asked. So while the one write command under way
// will wait for a sync (DB.BeginWrite(true) to EndWrite, and no other
// writer: loneSyncWriter), and the last walLoneStreak syncs found it so
// too, the log holds what Pebble
// writes in a page-aligned buffer, the "stash", and the sync sends the
// stash directly, padded with zeros to a whole page. The direct
// descriptor has O_DSYNC: the write returns once its bytes are on the
// disk, so a sync that sent the stash directly makes no fdatasync: one
// system call per commit instead of two, about a microsecond on this
// PVM guest (docs/benchmarks.md, "Issue 33: the direct log write with
// O_DSYNC"). Pebble reads a zeroed tail as the
// log's end, which the extended log already holds past what is written
// (walFile).
//
// The rules that keep the bytes and the page cache right:
//   - The stash goes directly only when no write since the last sync went
//     through the page cache (dirty): a direct write over a dirty page
//     would first have the kernel write that page back. Otherwise it goes
//     through the page cache as any other write.
//   - A direct write drops the page cache's copy of its pages. The next
//     write through the page cache then writes the tail page whole, from
//     the buffer's copy of its first bytes (head), with zeros after:
//     writing part of a page that is not cached would read it from the
//     disk first.
//   - What the stash holds reaches the kernel at the next sync, at a
//     write that does not fit, when the last such commit ends
//     (flushStash), and at close: acknowledged w:1 writes stay in the
//     process at most until the next sync, within the periodic sync's
//     interval, as mongod's stay within its journal's.
//
// Direct writes are Linux's; a filesystem that refuses O_DIRECT (tmpfs
// before Linux 6.6) leaves the log on the page cache.
type walDirect struct {
	mu    sync.Mutex
	fd    int    // the log opened again with O_DIRECT; -1: direct writes off
	buf   []byte // page-aligned, walDirectBuf bytes
	head  int    // buf[:head]: the log's bytes from the page holding flushed up to flushed
	stash int    // buf[head:head+stash]: bytes Pebble wrote that are not yet in the kernel
	// flushed is the offset up to which the kernel has the log's bytes.
	flushed int64
	// dirty: a write through the page cache since the last sync.
	dirty bool
	// uncached: the tail page was last written directly; the page cache
	// holds no copy of it.
	uncached bool
	// cachedWrites counts the writes through the page cache: a sync
	// clears dirty only if none came in while it ran without mu.
	cachedWrites uint64
	// loneSyncs counts the syncs in a row made while one j:true writer
	// was alone (DB.loneSyncWriter); writes are kept only after
	// walLoneStreak of them.
	loneSyncs int
	// held is stash > 0, read without mu by EndWrite.
	held atomic.Bool
	// wholePages counts the writes through the page cache that wrote
	// the tail page whole (tests).
	wholePages int
}

// noDirectWAL turns direct writes off, as a filesystem without O_DIRECT
// does (tests).
var noDirectWAL = false

// walPage is the alignment of a direct write: the largest logical block
// size of the disks Lode runs on.
const walPage = 4096

// walLoneStreak is how many syncs in a row must find one j:true writer
// alone before its writes are kept; a sync while no write command is
// under way neither counts nor breaks the streak. Switching costs: a direct write drops
// the pages it covers from the page cache, and the next write through
// the page cache allocates them again. Sixty-four clients on two cores
// are often down to one writer for a moment: without a streak 2,019 of
// 6,119 syncs went directly, with a streak of 8 608 of 9,900 (and 4%
// more server CPU per insert than without direct writes, in 5 of 6
// pairs), with 32 30 of 9,428 (docs/benchmarks.md, "Issue 33: a lone
// j:true writer's log writes without the page cache").
const walLoneStreak = 32

// walDirectBuf is the size of a log's aligned buffer: a page for the
// head and the padding, and the rest for the stash. Pebble writes a log
// in blocks of at most 32 KiB.
const walDirectBuf = 128 << 10

// newWALDirect opens the log name again for direct writes; nil when this
// system or its filesystem has none.
func newWALDirect(name string) *walDirect {
	if noDirectWAL {
		return nil
	}
	fd, err := openDirect(name)
	if err != nil {
		return nil
	}
	return &walDirect{fd: fd, buf: alignedPages(walDirectBuf)}
}

// alignedPages returns n bytes starting on a walPage boundary, as a
// direct write's buffer must.
func alignedPages(n int) []byte {
	raw := make([]byte, n+walPage)
	skip := (walPage - int(uintptr(unsafe.Pointer(&raw[0]))%walPage)) % walPage
	return raw[skip : skip+n]
}

// writeDirect takes p, Pebble's write at the log's end: into the stash
// while the one write command under way will wait for a sync and p fits,
// else to the kernel.
func (w *walFile) writeDirect(p []byte) (int, error) {
	d := w.direct
	d.mu.Lock()
	defer d.mu.Unlock()
	// Half a step ahead, so that the extension's zeros are on the disk
	// before a direct write reaches them (a direct write waits for the
	// write-back of the pages it covers).
	w.extend(w.off + int64(len(p)) + walStep/2)
	lone := d.loneSyncs >= walLoneStreak && w.db.loneSyncWriter() && d.fd >= 0 && !w.fixed
	if fits := d.head+d.stash+len(p) <= len(d.buf)-walPage; fits && (lone || d.stash > 0) {
		copy(d.buf[d.head+d.stash:], p)
		d.stash += len(p)
		w.off += int64(len(p))
		if lone {
			d.held.Store(true)
			return len(p), nil
		}
		// No longer alone: the stash and p go to the kernel in one call.
		if err := w.flushStashLocked(); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if err := w.flushStashLocked(); err != nil {
		return 0, err
	}
	n, err := w.cachedWrite(p)
	w.off += int64(n)
	return n, err
}

// cachedWrite writes p at flushed through the page cache; p is the stash
// (it lies in d.buf after head) or a write of Pebble's.
func (w *walFile) cachedWrite(p []byte) (int, error) {
	d := w.direct
	start, data := d.flushed, p
	if d.uncached {
		// The tail page is not cached: write it whole, from its start.
		if d.head+len(p)+walPage <= len(d.buf) {
			copy(d.buf[d.head:], p) // no-op for the stash
			end := roundPage(d.head + len(p))
			clear(d.buf[d.head+len(p) : end])
			start, data = d.flushed-int64(d.head), d.buf[:end]
			d.wholePages++
		}
	}
	n, err := rawPwrite(uintptr(w.Fd()), w.name, data, start)
	if err != nil {
		return 0, w.db.writeFailed(err)
	}
	if n != len(data) {
		return 0, w.db.writeFailed(errors.New("storage: short log write"))
	}
	d.dirty = true
	d.cachedWrites++
	d.uncached = false
	d.advance(p)
	return len(p), nil
}

// flushStashLocked hands the stash to the kernel through the page cache.
func (w *walFile) flushStashLocked() error {
	d := w.direct
	if d.stash == 0 {
		return nil
	}
	_, err := w.cachedWrite(d.buf[d.head : d.head+d.stash])
	if err == nil {
		d.stash = 0
		d.held.Store(false)
	}
	return err
}

// directWriteLocked sends the stash directly, padded to whole pages.
// It reports false when the filesystem refused (direct writes are then
// off for this log and the caller writes through the page cache).
func (w *walFile) directWriteLocked() (bool, error) {
	d := w.direct
	n := d.head + d.stash
	end := roundPage(n)
	clear(d.buf[n:end])
	err := rawPwriteDirect(d.fd, w.name, d.buf[:end], d.flushed-int64(d.head))
	if err == syscall.EINVAL {
		d.closeFd()
		return false, nil
	}
	if err != nil {
		return false, w.db.writeFailed(err)
	}
	d.uncached = true
	w.db.walDirectWrites.Add(1)
	d.advance(d.buf[d.head : d.head+d.stash])
	d.stash = 0
	d.held.Store(false)
	return true, nil
}

// syncDirect is the log's sync: the stash first (directly when no write
// since the last sync went through the page cache, and then durable
// already), else fdatasync, without mu: EndWrite's flushStash must not
// wait for a sync to end.
func (w *walFile) syncDirect(data bool) error {
	d := w.direct
	d.mu.Lock()
	switch {
	case w.db.loneSyncWriter():
		d.loneSyncs++
	case w.db.writers.Load() > 0:
		d.loneSyncs = 0
	default:
		// No write command under way (the periodic sync between two
		// commands): it says nothing of how many write at once.
	}
	sent, err := w.sendStashLocked()
	if err != nil {
		d.mu.Unlock()
		return err
	}
	if sent && data {
		// Opened with O_DSYNC, the direct write returned once its bytes,
		// and what reading them back needs (the size), were on the disk:
		// the fdatasync it replaces. No write since the last sync went
		// through the page cache (sendStashLocked).
		d.mu.Unlock()
		return nil
	}
	gen := d.cachedWrites
	d.mu.Unlock()
	if err := w.db.writeFailed(rawSync(w.Fd(), w.name, data)); err != nil {
		return err
	}
	d.mu.Lock()
	if d.cachedWrites == gen {
		d.dirty = false
	}
	d.mu.Unlock()
	return nil
}

// sendStashLocked hands the stash to the kernel before a sync: directly
// when no write since the last sync went through the page cache. sent
// reports a direct write, durable on return.
func (w *walFile) sendStashLocked() (sent bool, err error) {
	d := w.direct
	if d.stash == 0 {
		return false, nil
	}
	if !d.dirty && d.fd >= 0 {
		sent, err := w.directWriteLocked()
		if err != nil || sent {
			return sent, err
		}
	}
	return false, w.flushStashLocked()
}

// flushStash hands the stash to the kernel (the last commit waiting for
// a sync has ended, or the log closes).
func (w *walFile) flushStash() error {
	d := w.direct
	if !d.held.Load() {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return w.flushStashLocked()
}

// advance records that the kernel now has data, the log's next bytes
// after flushed: head becomes the bytes of the page holding the new end.
// data may lie in buf after head (the stash).
func (d *walDirect) advance(data []byte) {
	end := d.flushed + int64(len(data))
	head := int(end % walPage)
	if end-int64(head) == d.flushed-int64(d.head) {
		copy(d.buf[d.head:], data) // the same page: head grows
	} else {
		copy(d.buf, data[len(data)-head:]) // the new page starts inside data
	}
	d.head, d.flushed = head, end
}

func (d *walDirect) closeFd() {
	if d.fd >= 0 {
		closeDirect(d.fd)
		d.fd = -1
	}
}

func roundPage(n int) int { return (n + walPage - 1) &^ (walPage - 1) }
