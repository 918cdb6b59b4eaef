package storage

import (
	"sync"

	"github.com/cockroachdb/pebble/v2/objstorage"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// tableWritable is where the sstables Lode writes itself go (a commit by
// ingestion's, a sorted load's): the file behind a buffer of
// tableWriteBuffer bytes, synced and closed at Finish.
//
// Pebble's own (objstorageprovider.NewFileWritable) buffers 4 KiB, so
// every data block, 32 KiB before compression, went to the file in a
// write of its own: about 130 write calls for each 10,000-event batch of
// the event-log load, each a trap to the hypervisor on a virtual machine.
// With this buffer a commit's table is written in one or two calls.
//
// When raw, the file is the operating system's and is written and synced
// with raw system calls, as the write-ahead log is (walFile says why and
// what it costs): a table's fsync through syscall.Syscall outlasted the
// runtime monitor's 20 us tick, which took the P back, and on a server
// otherwise idle that began another millisecond of the monitor's 20 us
// wake-ups, 12% of the event-log load's insert phase (docs/benchmarks.md,
// twenty-eighth session).
type tableWritable struct {
	f    vfs.File
	name string // the file's path, for errors
	buf  *[]byte
	raw  bool
}

// tableWriteBuffer is the write buffer of a table Lode writes.
const tableWriteBuffer = 512 << 10

var tableBufPool = sync.Pool{New: func() any {
	b := make([]byte, 0, tableWriteBuffer)
	return &b
}}

var _ objstorage.Writable = (*tableWritable)(nil)

func newTableWritable(f vfs.File, name string, raw bool) *tableWritable {
	return &tableWritable{f: f, name: name, buf: tableBufPool.Get().(*[]byte), raw: rawIO(raw, f)}
}

func (w *tableWritable) write(p []byte) error {
	if w.raw {
		_, err := rawWrite(w.f.Fd(), w.name, p)
		return err
	}
	_, err := w.f.Write(p)
	return err
}

// Write appends p to the buffer, writing the buffer out when p does not
// fit; p at least as long as the buffer goes to the file directly.
func (w *tableWritable) Write(p []byte) error {
	b := *w.buf
	if len(b)+len(p) > cap(b) {
		if err := w.flush(); err != nil {
			return err
		}
		b = *w.buf
		if len(p) >= cap(b) {
			return w.write(p)
		}
	}
	*w.buf = append(b, p...)
	return nil
}

func (w *tableWritable) flush() error {
	b := *w.buf
	if len(b) == 0 {
		return nil
	}
	err := w.write(b)
	*w.buf = b[:0]
	return err
}

// Finish writes what the buffer holds, syncs the file and closes it.
func (w *tableWritable) Finish() error {
	err := w.flush()
	if err == nil {
		if w.raw {
			err = rawSync(w.f.Fd(), w.name, false)
		} else {
			err = w.f.Sync()
		}
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.release()
	return err
}

// Abort closes the file without writing what the buffer holds.
func (w *tableWritable) Abort() {
	_ = w.f.Close()
	w.release()
}

func (w *tableWritable) release() {
	if w.buf != nil {
		*w.buf = (*w.buf)[:0]
		tableBufPool.Put(w.buf)
		w.buf = nil
	}
}
