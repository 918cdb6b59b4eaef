package expr

import (
	"time"
	"unsafe"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// docMemo lets several expressions evaluated on one document share work:
// the last top-level field path looked up on it, and the last date
// broken into calendar fields. A pipeline stage that evaluates many
// expressions per input (a $group with folded date parts reads "$time"
// three times) calls Vars.NextDoc before each input; without that call
// field lookups are not memoised. Date decompositions are keyed by their
// value and zone alone, so they need no invalidation.
type docMemo struct {
	gen    uint64  // current document; 0 = memoising off
	docGen uint64  // gen the scan below belongs to
	doc    uintptr // address of the document the scan below reads
	docLen int
	// The top-level fields read so far, in order, and where the scan
	// stopped: a lookup reads on from there, so a document is walked
	// once however many of its fields are read.
	seen []bsonutil.Element // offsets, no pointers: no GC write barriers
	pos  int

	dateOK  bool
	dateMs  int64
	dateLoc *time.Location
	date    time.Time
	ymd     [3]int // year, month, day of date

	// The last UTC day broken into calendar fields: the milliseconds
	// [dayLo, dayHi) and their year, month and day. Dates arriving in
	// time order fall in it until the day changes.
	dayLo, dayHi int64
	dayYMD       [3]int
}

// NextDoc starts a new input document: field lookups memoised on the
// previous one are forgotten. A Vars must not be shared by goroutines.
func (vs *Vars) NextDoc() {
	if vs != nil {
		vs.memo.gen++
	}
}

// lookupTop returns doc's top-level field name, memoised for the current
// document when NextDoc is in use.
func (vs *Vars) lookupTop(doc bsoncore.Document, name string) bsoncore.Value {
	if vs == nil || vs.memo.gen == 0 || len(doc) < 5 {
		return lookupField(doc, name)
	}
	m := &vs.memo
	addr := uintptr(unsafe.Pointer(&doc[0]))
	if m.docGen != m.gen || m.doc != addr || m.docLen != len(doc) {
		m.docGen, m.doc, m.docLen = m.gen, addr, len(doc)
		m.seen, m.pos = m.seen[:0], 4
	}
	for i := len(m.seen) - 1; i >= 0; i-- { // the last read is the likeliest
		if f := m.seen[i]; string(doc[f.Name:f.NameEnd]) == name {
			return f.Value(doc)
		}
	}
	end := len(doc) - 1
	for m.pos < end {
		f, ok := bsonutil.ElementAt(doc[:end], m.pos)
		if !ok {
			m.pos = end // malformed: nothing further is found
			return lookupField(doc, name)
		}
		m.pos = f.End
		m.seen = append(m.seen, f)
		if string(doc[f.Name:f.NameEnd]) == name {
			return f.Value(doc)
		}
	}
	return Missing
}

// dayMillis is the length of a UTC day.
const dayMillis = 86_400_000

// maxDayCached bounds the dates whose UTC day utcDate caches: the day's
// bounds of a date within it do not overflow int64.
const maxDayCached = 1 << 62

// utcDate returns the year, month and day of ms in UTC, reusing the last
// day's when ms falls in it: a UTC day starts at a multiple of
// dayMillis (UTC has no offset changes and Go's calendar, as mongod's,
// has no leap seconds), so every millisecond of it has the same date.
// Dates before 1970 floor to the day they fall in.
func (vs *Vars) utcDate(ms int64) (y, mo, d int) {
	if vs == nil || ms <= -maxDayCached || ms >= maxDayCached {
		_, y, mo, d = vs.localDate(ms, time.UTC)
		return y, mo, d
	}
	m := &vs.memo
	if ms >= m.dayLo && ms < m.dayHi {
		return m.dayYMD[0], m.dayYMD[1], m.dayYMD[2]
	}
	lo := floorDiv(ms, dayMillis) * dayMillis
	t := time.UnixMilli(lo).UTC()
	yy, mm, dd := t.Date()
	m.dayLo, m.dayHi = lo, lo+dayMillis
	m.dayYMD = [3]int{yy, int(mm), dd}
	return yy, int(mm), dd
}

// localDate is the package's localTime with its year, month and day,
// memoised on its arguments.
func (vs *Vars) localDate(ms int64, loc *time.Location) (t time.Time, y, mo, d int) {
	if vs == nil {
		t = localTime(ms, loc)
		y, m, d := t.Date()
		return t, y, int(m), d
	}
	m := &vs.memo
	if !m.dateOK || m.dateMs != ms || m.dateLoc != loc {
		t := localTime(ms, loc)
		y, mo, d := t.Date()
		m.dateOK, m.dateMs, m.dateLoc, m.date = true, ms, loc, t
		m.ymd = [3]int{y, int(mo), d}
	}
	return m.date, m.ymd[0], m.ymd[1], m.ymd[2]
}
