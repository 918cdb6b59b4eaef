package expr

import (
	"bytes"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/bsonutil"
)

// docMemo lets several expressions evaluated on one document share work:
// the last top-level field path looked up on it, and the last date
// broken into calendar fields. A pipeline stage that evaluates many
// expressions per input (a $group with folded date parts reads "$time"
// three times) calls Vars.NextDoc before each input; without that call
// field lookups are not memoised. Date decompositions are keyed by their
// value and zone alone, so they need no invalidation.
type docMemo struct {
	gen    uint64 // current document; 0 = memoising off
	docGen uint64 // gen the scan below belongs to
	doc    *byte  // the document the scan below reads
	docLen int
	// The top-level fields read so far, in order, and where the scan
	// stopped: a lookup reads on from there, so a document is walked
	// once however many of its fields are read.
	seen []seenField
	pos  int

	dateOK  bool
	dateMs  int64
	dateLoc *time.Location
	date    time.Time
	ymd     [3]int // year, month, day of date
}

// NextDoc starts a new input document: field lookups memoised on the
// previous one are forgotten. A Vars must not be shared by goroutines.
func (vs *Vars) NextDoc() {
	if vs != nil {
		vs.memo.gen++
	}
}

type seenField struct {
	name []byte
	val  bsoncore.Value
}

// lookupTop returns doc's top-level field name, memoised for the current
// document when NextDoc is in use.
func (vs *Vars) lookupTop(doc bsoncore.Document, name string) bsoncore.Value {
	if vs == nil || vs.memo.gen == 0 || len(doc) < 5 {
		return lookupField(doc, name)
	}
	m := &vs.memo
	if m.docGen != m.gen || m.doc != &doc[0] || m.docLen != len(doc) {
		m.docGen, m.doc, m.docLen = m.gen, &doc[0], len(doc)
		m.seen, m.pos = m.seen[:0], 4
	}
	for i := len(m.seen) - 1; i >= 0; i-- { // the last read is the likeliest
		if string(m.seen[i].name) == name {
			return m.seen[i].val
		}
	}
	end := len(doc) - 1
	for m.pos < end {
		el, n := bsoncore.Element(doc[m.pos:end]), 0
		key, v, ok := readElement(el, &n)
		if !ok {
			m.pos = end // malformed: nothing further is found
			return lookupField(doc, name)
		}
		m.pos += n
		m.seen = append(m.seen, seenField{name: key, val: v})
		if string(key) == name {
			return v
		}
	}
	return Missing
}

// readElement reads the element at the start of b: its name, its value
// and its encoded length in *n.
func readElement(b []byte, n *int) ([]byte, bsoncore.Value, bool) {
	if len(b) < 2 {
		return nil, bsoncore.Value{}, false
	}
	t := bsoncore.Type(b[0])
	z := bytes.IndexByte(b[1:], 0)
	if z < 0 {
		return nil, bsoncore.Value{}, false
	}
	vs := 2 + z
	size := bsonutil.ValueSize(t, b[vs:])
	if size < 0 {
		return nil, bsoncore.Value{}, false
	}
	*n = vs + size
	return b[1 : 1+z], bsoncore.Value{Type: t, Data: b[vs : vs+size : vs+size]}, true
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
