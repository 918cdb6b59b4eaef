package timeseries

import (
	"crypto/rand"
	"encoding/binary"
	"hash/fnv"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// mongod 7.0's bucket limits (timeseriesBucketMaxCount,
// timeseriesBucketMaxSize, timeseriesBucketMinCount and the size a bucket
// of large measurements may reach: 16 MB less 4 MB of headroom).
const (
	DefaultMaxCount  = 1000
	DefaultMaxSize   = 128000
	DefaultMinCount  = 10
	LargeBucketLimit = 16*1024*1024 - 4*1024*1024
)

// maxArchived bounds the buckets kept per meta value for measurements
// that arrive out of time order (mongod's archived buckets).
const maxArchived = 4

// DefaultMemoryLimit bounds the bytes a catalog keeps for open buckets;
// past it the least recently used ones are closed (Expire).
const DefaultMemoryLimit = 64 << 20

// Catalog holds the open buckets of one time series collection, by meta
// value. It is not safe for concurrent use: the engine calls it under the
// buckets collection's writer lock, so inserts from many clients are
// serialised there, and one command routes all its measurements before
// the buckets it touched are written in one batch.
type Catalog struct {
	series  map[string]*series
	counter uint32
	hash    [5]byte
	clock   uint64 // use stamps for the least recently used order
	memory  int
	scratch []byte
	// Reopen, when set, finds a stored bucket for a measurement of a
	// series the catalog does not hold (after a restart, or once its
	// buckets left memory): the bucket's document and record id, or nil.
	// mongod 7.0 reopens buckets so.
	Reopen func(meta []byte, t int64) (bsoncore.Document, uint64)
	// byID names the series of each bucket the catalog holds (Forget).
	byID map[bson.ObjectID]string
	// Limits, mongod's by default.
	MaxCount, MaxSize, MinCount int
	MemoryLimit                 int
	// Stats are the catalog's figures (collStats' timeseries section);
	// Clear keeps them.
	Stats Stats
}

type series struct {
	key      string // the normalised meta element ("" without meta)
	open     *Bucket
	archived []*Bucket
	used     uint64
}

// NewCatalog returns an empty catalog with mongod's limits.
func NewCatalog() *Catalog {
	c := &Catalog{series: map[string]*series{}, byID: map[bson.ObjectID]string{}, MaxCount: DefaultMaxCount, MaxSize: DefaultMaxSize,
		MinCount: DefaultMinCount, MemoryLimit: DefaultMemoryLimit}
	var r [4]byte
	_, _ = rand.Read(r[:])
	c.counter = binary.BigEndian.Uint32(r[:]) & 0xffffff
	return c
}

// Measurement is one document to insert, prepared by the engine (with its
// _id first): its time (ms) and its meta element (nil when it has none).
type Measurement struct {
	Doc  bsoncore.Document
	Time int64
	Meta bsoncore.Value
	// HasMeta: the document has the meta field.
	HasMeta bool
}

// Read checks that m has the time field as a date and returns the
// measurement, as mongod 7.0 does before bucketing. doc's elements are
// valid BSON (the engine validated them when it prepared the insert);
// the buckets' passes over it do not validate them again.
func Read(o *Options, doc bsoncore.Document) (Measurement, error) {
	m := Measurement{Doc: doc}
	hasTime := false
	err := bsonutil.EachElementTrusted(doc, func(el bsoncore.Element) error {
		switch k := el.Key(); {
		case k == o.TimeField:
			v := el.Value()
			if v.Type == bsoncore.TypeDateTime {
				m.Time, hasTime = v.DateTime(), true
			}
		case o.MetaField != "" && k == o.MetaField:
			m.Meta, m.HasMeta = el.Value(), true
		}
		return nil
	})
	if err != nil {
		return m, errs.New(errs.InvalidBSON, "invalid BSON document: %v", err)
	}
	if !hasTime {
		return m, errs.New(errs.BadValue, "'%s' must be present and contain a valid BSON UTC datetime value", o.TimeField)
	}
	return m, nil
}

// Add routes m into its bucket and returns it. Buckets the measurement
// made leave the catalog (rolled over by count, size, time span or a
// change of a field's type) are appended to closed: the engine writes
// them in their final form.
func (c *Catalog) Add(o *Options, m Measurement, closed []*Bucket) (*Bucket, []*Bucket) {
	// The normalised meta element is the series' key; it is built in a
	// scratch buffer and copied only for a new series.
	c.scratch = normalizedMeta(c.scratch[:0], m)
	s := c.series[string(c.scratch)]
	if s == nil {
		s = &series{key: string(c.scratch)}
		c.series[s.key] = s
		if b := c.reopen(o, m, s); b != nil {
			c.clock++
			s.used = c.clock
			c.addTo(b, o, m, measurementSize(m.Doc, o))
			return b, closed
		}
		c.Stats.OpenedDueToMetadata.Add(1)
	}

	c.clock++
	s.used = c.clock
	size := measurementSize(m.Doc, o)
	var timeRollover bool
	if b := s.open; b != nil {
		f := c.fits(b, o, m, size)
		switch f {
		case fitOK:
			c.addTo(b, o, m, size)
			return b, closed
		case fitTimeBackward:
			// mongod 7.0 archives a bucket a measurement went back in
			// time from (later ones may still come for it); every other
			// rollover closes it.
			timeRollover = true
		}
		// An archived bucket that takes the measurement becomes the
		// open one again.
		for i, a := range s.archived {
			if c.fits(a, o, m, size) == fitOK {
				s.archived = append(s.archived[:i], s.archived[i+1:]...)
				c.count(f)
				c.Stats.Reopened.Add(1)
				closed = c.retire(s, b, timeRollover, closed)
				s.open = a
				c.addTo(a, o, m, size)
				return a, closed
			}
		}
		c.count(f)
		closed = c.retire(s, b, timeRollover, closed)
	}
	b := c.newBucket(o, m, s.key)
	s.open = b
	c.addTo(b, o, m, size)
	return b, closed
}

// reopen asks Reopen for a stored bucket m fits in and makes it s's open
// bucket.
func (c *Catalog) reopen(o *Options, m Measurement, s *series) *Bucket {
	if c.Reopen == nil {
		return nil
	}
	var meta []byte
	if m.HasMeta {
		meta = []byte(s.key)
	}
	doc, rid := c.Reopen(meta, m.Time)
	if doc == nil {
		return nil
	}
	b := FromDocument(o, doc, rid)
	if b == nil || c.fits(b, o, m, measurementSize(m.Doc, o)) != fitOK {
		return nil
	}
	s.open = b
	c.byID[b.ID] = s.key
	c.memory += b.memory()
	c.Stats.Reopened.Add(1)
	return b
}

// retire takes b out of the open slot: archived when a measurement went
// back in time from it, closed otherwise.
func (c *Catalog) retire(s *series, b *Bucket, archive bool, closed []*Bucket) []*Bucket {
	s.open = nil
	if !archive {
		c.memory -= b.memory()
		delete(c.byID, b.ID)
		return append(closed, b)
	}
	s.archived = append(s.archived, b)
	if len(s.archived) > maxArchived {
		old := s.archived[0]
		s.archived = s.archived[1:]
		c.memory -= old.memory()
		delete(c.byID, old.ID)
		closed = append(closed, old)
	}
	return closed
}

func (c *Catalog) addTo(b *Bucket, o *Options, m Measurement, size int) {
	before := b.memory()
	b.add(m.Doc, m.Time, o, size)
	c.memory += b.memory() - before
}

type fit int

const (
	fitOK fit = iota
	fitTimeForward
	fitTimeBackward
	fitCount
	fitSchema
	fitSize
)

// count counts a rollover in the catalog's figures.
func (c *Catalog) count(f fit) {
	switch f {
	case fitTimeForward:
		c.Stats.ClosedDueToTimeForward.Add(1)
	case fitTimeBackward:
		c.Stats.ArchivedDueToTimeBackward.Add(1)
	case fitCount:
		c.Stats.ClosedDueToCount.Add(1)
	case fitSchema:
		c.Stats.ClosedDueToSchemaChange.Add(1)
	case fitSize:
		c.Stats.ClosedDueToSize.Add(1)
	}
}

// fits applies mongod 7.0's rollover rules to a measurement of the
// bucket's meta value.
func (c *Catalog) fits(b *Bucket, o *Options, m Measurement, size int) fit {
	if m.Time-b.MinTime >= o.MaxSpan*1000 {
		return fitTimeForward
	}
	if m.Time < b.MinTime {
		return fitTimeBackward
	}
	if b.Count >= c.MaxCount {
		return fitCount
	}
	if !b.schemaFits(m.Doc, o) {
		return fitSchema
	}
	if b.Size+size > c.MaxSize {
		if b.Count >= c.MinCount || b.Size+size > LargeBucketLimit {
			return fitSize
		}
		if !b.keptOpen {
			b.keptOpen = true
			c.Stats.KeptOpenDueToLargeMeasurements.Add(1)
		}
	}
	return fitOK
}

func (c *Catalog) newBucket(o *Options, m Measurement, key string) *Bucket {
	var meta []byte
	if key != "" {
		meta = []byte(key)
	}
	start := o.RoundDown(m.Time)
	b := &Bucket{metaKey: key, meta: meta, MinTime: start, byName: map[string]*column{}}
	b.ID = c.NewID(start, key)
	c.byID[b.ID] = key
	b.Size = len(meta)
	return b
}

// NewID returns a bucket _id for a bucket starting at start (ms) with meta
// key key: an ObjectId whose time is the start (whole seconds), then five
// bytes of the meta value's hash and a counter, as mongod builds them.
func (c *Catalog) NewID(start int64, key string) bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[0:4], uint32(start/1000))
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	sum := h.Sum64()
	for i := 0; i < 5; i++ {
		id[4+i] = byte(sum >> (8 * i))
	}
	c.counter = (c.counter + 1) & 0xffffff
	id[9], id[10], id[11] = byte(c.counter>>16), byte(c.counter>>8), byte(c.counter)
	return id
}

// Clear forgets every open bucket (after a failed write: what is stored
// stays as it was, and new measurements open new buckets).
func (c *Catalog) Clear() {
	c.series = map[string]*series{}
	c.byID = map[bson.ObjectID]string{}
	c.memory = 0
}

// Forget takes the bucket with _id id out of the catalog, if it holds
// it: its stored version was changed by another write, and later
// measurements of its series go into another bucket.
func (c *Catalog) Forget(id bson.ObjectID) {
	k, ok := c.byID[id]
	if !ok {
		return
	}
	delete(c.byID, id)
	s := c.series[k]
	if s == nil {
		return
	}
	if s.open != nil && s.open.ID == id {
		c.memory -= s.open.memory()
		s.open = nil
	}
	for i, a := range s.archived {
		if a.ID == id {
			c.memory -= a.memory()
			s.archived = append(s.archived[:i], s.archived[i+1:]...)
			break
		}
	}
	if s.open == nil && len(s.archived) == 0 {
		delete(c.series, k)
	}
}

// Each calls f for every bucket the catalog holds.
func (c *Catalog) Each(f func(*Bucket)) {
	for _, s := range c.series {
		if s.open != nil {
			f(s.open)
		}
		for _, a := range s.archived {
			f(a)
		}
	}
}

// Expire closes the least recently used series' buckets while the catalog
// holds more than its memory limit, and returns them (the engine writes
// the dirty ones and compresses them).
func (c *Catalog) Expire(closed []*Bucket) []*Bucket {
	if c.memory <= c.MemoryLimit {
		return closed
	}
	type ent struct {
		key  string
		used uint64
	}
	all := make([]ent, 0, len(c.series))
	for k, s := range c.series {
		all = append(all, ent{k, s.used})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used < all[j].used })
	for _, e := range all {
		if c.memory <= c.MemoryLimit*3/4 {
			break
		}
		s := c.series[e.key]
		for _, a := range s.archived {
			c.memory -= a.memory()
			closed = append(closed, a)
			delete(c.byID, a.ID)
			c.Stats.ClosedDueToMemoryThreshold.Add(1)
		}
		if s.open != nil {
			c.memory -= s.open.memory()
			delete(c.byID, s.open.ID)
			closed = append(closed, s.open)
			c.Stats.ClosedDueToMemoryThreshold.Add(1)
		}
		delete(c.series, e.key)
	}
	return closed
}

// memory estimates the bytes b holds: its columns and its stored version.
func (b *Bucket) memory() int {
	n := len(b.Written) + 200
	for _, c := range b.fields {
		n += len(c.data) + len(c.min.Data) + len(c.max.Data) + 64
	}
	return n
}

// measurementSize estimates what m adds to a bucket, as mongod's
// calculateBucketSizeAndSchemaChange: each field's value under a
// positional name.
func measurementSize(doc bsoncore.Document, o *Options) int {
	n := 0
	_ = bsonutil.EachElementTrusted(doc, func(el bsoncore.Element) error {
		k := el.Key()
		if o.MetaField != "" && k == o.MetaField {
			return nil
		}
		// type byte + value, the positional name (up to 3 digits) and its
		// terminator.
		n += len(el) - len(k) + 3
		return nil
	})
	return n
}

// normalizedMeta appends the bucket's meta element (keyed "meta", its
// embedded documents' fields sorted by name, as mongod normalises the
// metadata) to dst; nothing when m has no meta. It is also the key of the
// measurement's series.
func normalizedMeta(dst []byte, m Measurement) []byte {
	if !m.HasMeta {
		return dst
	}
	return appendNormalized(dst, "meta", m.Meta)
}

func appendNormalized(dst []byte, key string, v bsoncore.Value) []byte {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		sort.SliceStable(elems, func(i, j int) bool { return elems[i].Key() < elems[j].Key() })
		idx, out := bsoncore.AppendDocumentElementStart(dst, key)
		for _, el := range elems {
			out = appendNormalized(out, el.Key(), el.Value())
		}
		out, _ = bsoncore.AppendDocumentEnd(out, idx)
		return out
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		idx, out := bsoncore.AppendArrayElementStart(dst, key)
		for i, x := range vals {
			out = appendNormalized(out, bsonutil.ArrayKey(i), x)
		}
		out, _ = bsoncore.AppendArrayEnd(out, idx)
		return out
	}
	return bsoncore.AppendValueElement(dst, key, v)
}
