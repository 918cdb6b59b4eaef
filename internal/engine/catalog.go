package engine

import (
	"crypto/rand"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/storage"
	"github.com/lodedb/lode/internal/timeseries"
)

// catalog is an immutable snapshot of all namespaces. Changes build a new
// catalog (copy on write) under Engine.catMu and publish it atomically.
type catalog struct {
	dbs map[string]map[string]*collection
	// views holds each database's parsed view definitions (views.go),
	// shared between versions and replaced whole when they change.
	views map[string]*dbViews
}

func (c *catalog) lookup(db, coll string) *collection {
	if c == nil {
		return nil
	}
	return c.dbs[db][coll]
}

// byUUID returns the collection with UUID u, or nil.
func (c *catalog) byUUID(u [16]byte) *collection {
	if c == nil {
		return nil
	}
	for _, colls := range c.dbs {
		for _, coll := range colls {
			if coll.UUID == u {
				return coll
			}
		}
	}
	return nil
}

// clone returns a copy whose maps can be changed.
func (c *catalog) clone() *catalog {
	n := &catalog{dbs: make(map[string]map[string]*collection, len(c.dbs)+1), views: c.views}
	for db, colls := range c.dbs {
		m := make(map[string]*collection, len(colls)+1)
		for k, v := range colls {
			m[k] = v
		}
		n.dbs[db] = m
	}
	return n
}

// put adds or replaces coll in c, sealing its descriptors (their cached
// planner views) first: every collection is published through put.
func (c *catalog) put(coll *collection) {
	m := c.dbs[coll.DB]
	if m == nil {
		m = make(map[string]*collection)
		c.dbs[coll.DB] = m
	}
	coll.Seal()
	m[coll.Name] = coll
}

func (c *catalog) remove(db, name string) {
	if m := c.dbs[db]; m != nil {
		delete(m, name)
		if len(m) == 0 {
			delete(c.dbs, db)
		}
	}
}

// collection is one collection's descriptor (descriptors.go) with
// the engine's view of its options and its mutable state. A value is
// never modified after it is published; state is shared by all versions.
type collection struct {
	collDesc
	state *collState
	// images: changeStreamPreAndPostImages is enabled (from options).
	images bool
	// validator: the document validation of options (validator.go).
	validator *docValidator
	// tsTime is a buckets collection's time field ("" for any other
	// collection), from its options' timeseries.timeField.
	tsTime string
}

// collatorOf reads a collection's default collation from its options,
// where create stored the normalised spec.
func collatorOf(options bsoncore.Document) *collation.Collator {
	v, err := options.LookupErr("collation")
	if err != nil {
		return nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	s, err := collation.Parse(d)
	if err != nil {
		return nil
	}
	return collation.New(s)
}

// imagesEnabled reads changeStreamPreAndPostImages.enabled from a
// collection's options.
func imagesEnabled(options bsoncore.Document) bool {
	if len(options) == 0 {
		return false
	}
	b, _ := options.Lookup("changeStreamPreAndPostImages", "enabled").BooleanOK()
	return b
}

// collState is the mutable, version-independent state of a collection.
type collState struct {
	// mu serializes writers for the read-modify-commit critical section.
	mu      sync.Mutex
	dropped bool              // under mu
	rids    storage.RecordIDs // under mu: allocates new records' ids

	// Record count and total size, maintained under mu once valid.
	statsValid bool
	count      int64
	dataSize   int64
	// docCount mirrors count for readers that do not take mu (the
	// planner's collection-scan preference); 0 while unknown.
	docCount atomic.Int64

	// Logical bytes (key + value) of each index's entries by index id,
	// maintained under mu once idxValid; collStats reports them when
	// Pebble's on-disk estimate is lower (stats.go).
	idxValid bool
	idxBytes map[uint64]int64

	// Known-empty index ranges (scanhints.go): hints under mu. commits
	// counts transaction commits, which do not take mu; a renamed
	// collection shares its source's. Nil disables the hints.
	hints   emptyRanges
	commits *txnCommits

	// txnOwner is the open transaction that created the collection, under
	// mu; other writers get WriteConflict until it ends (txn_ddl.go).
	txnOwner *Txn
	// uncommitted is txnOwner for readers that do not take mu: while it
	// is set, listCollections and listIndexes outside that transaction
	// do not show the collection, as mongod does not before the commit.
	uncommitted atomic.Pointer[Txn]

	// capped is the trimming state of a capped collection (capped.go);
	// unused otherwise.
	capped cappedInfo

	// plans is the collection's plan cache (plancache.go), filters its
	// index filters (plancache_filters.go).
	plans   planCache
	filters indexFilters

	// ts is a buckets collection's bucket catalog (timeseries.go),
	// under mu; created by the first insert into the time series
	// collection, forgotten when a write other than such an insert
	// changes the buckets.
	ts *timeseries.Catalog
	// tsPending are the time series inserts waiting for mu, under tsMu
	// (InsertTimeseries combines them).
	tsMu      sync.Mutex
	tsPending []*tsInsert
	// tsSpan is the widest bucket a buckets collection has held, in
	// milliseconds (bucketspan.go); -1 when unknown. tsSpanStored is
	// the value its catalog entry holds.
	tsSpan, tsSpanStored atomic.Int64
}

// copyMeta returns a shallow copy of c that can be changed before being
// published.
func (c *collection) copyMeta() *collection {
	n := *c
	n.Indexes = append([]*index(nil), c.Indexes...)
	return &n
}

func newUUID() [16]byte {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u
}

// encodeCollection renders the persisted catalog entry of c.
func encodeCollection(c *collection) []byte {
	idx, b := bsoncore.AppendDocumentStart(nil)
	b = bsoncore.AppendStringElement(b, "db", c.DB)
	b = bsoncore.AppendStringElement(b, "name", c.Name)
	b = bsoncore.AppendInt64Element(b, "id", int64(c.ID))
	b = bsoncore.AppendBinaryElement(b, "uuid", 4, c.UUID[:])
	if c.Options != nil {
		b = bsoncore.AppendDocumentElement(b, "options", c.Options)
	}
	b = bsoncore.AppendBooleanElement(b, "capped", c.Capped)
	b = bsoncore.AppendInt64Element(b, "size", c.Size)
	b = bsoncore.AppendInt64Element(b, "max", c.Max)
	if c.tsTime != "" {
		b = bsoncore.AppendInt64Element(b, bucketSpanKey, c.state.tsSpan.Load())
	}
	aidx, b := bsoncore.AppendArrayElementStart(b, "indexes")
	for i, ix := range c.Indexes {
		didx, bb := bsoncore.AppendDocumentElementStart(b, fmt.Sprint(i))
		bb = bsoncore.AppendInt64Element(bb, "id", int64(ix.ID))
		bb = bsoncore.AppendStringElement(bb, "name", ix.Name)
		bb = bsoncore.AppendDocumentElement(bb, "key", ix.Key)
		bb = bsoncore.AppendBooleanElement(bb, "unique", ix.Unique)
		bb = bsoncore.AppendBooleanElement(bb, "sparse", ix.Sparse)
		if ix.Hidden {
			bb = bsoncore.AppendBooleanElement(bb, "hidden", true)
		}
		if ix.PrepareUnique {
			bb = bsoncore.AppendBooleanElement(bb, "prepareUnique", true)
		}
		if ix.Partial != nil {
			bb = bsoncore.AppendDocumentElement(bb, "partialFilterExpression", ix.Partial)
		}
		if ix.TTL != nil {
			bb = bsoncore.AppendInt64Element(bb, "expireAfterSeconds", *ix.TTL)
		}
		if ix.Collation != nil {
			bb = bsoncore.AppendDocumentElement(bb, "collation", ix.Collation)
		}
		if ix.Text != nil {
			ts := ix.TextSpec
			bb = bsoncore.AppendDocumentElement(bb, "weights", ts.Weights)
			bb = bsoncore.AppendStringElement(bb, "default_language", ts.DefaultLanguage)
			bb = bsoncore.AppendStringElement(bb, "language_override", ts.LanguageOverride)
			bb = bsoncore.AppendInt32Element(bb, "textIndexVersion", ts.TextIndexVersion)
		}
		if ix.Geo2D != nil {
			bb = bsoncore.AppendDocumentElement(bb, "geo2d", ix.Geo2D)
		}
		bb = bsoncore.AppendBooleanElement(bb, "multikey", ix.Multikey)
		if ix.KeyFormat != 0 {
			bb = bsoncore.AppendInt32Element(bb, "keyFormat", int32(ix.KeyFormat))
		}
		pidx, bb2 := bsoncore.AppendArrayElementStart(bb, "multikeyPaths")
		for j, p := range ix.MultikeyPaths {
			bb2 = bsoncore.AppendStringElement(bb2, fmt.Sprint(j), p)
		}
		bb, _ = bsoncore.AppendArrayEnd(bb2, pidx)
		b, _ = bsoncore.AppendDocumentEnd(bb, didx)
	}
	b, _ = bsoncore.AppendArrayEnd(b, aidx)
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

// decodeCollection parses a persisted catalog entry.
func decodeCollection(raw []byte) (*collection, error) {
	d := bsoncore.Document(raw)
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("catalog entry: %w", err)
	}
	c := &collection{state: &collState{commits: &txnCommits{}}}
	c.DB = d.Lookup("db").StringValue()
	c.Name = d.Lookup("name").StringValue()
	c.ID = uint64(d.Lookup("id").Int64())
	_, u := d.Lookup("uuid").Binary()
	copy(c.UUID[:], u)
	if v, err := d.LookupErr("options"); err == nil {
		c.Options = append(bsoncore.Document(nil), v.Document()...)
		c.images = imagesEnabled(c.Options)
		c.validator = validatorOf(c.Options)
		c.Collator = collatorOf(c.Options)
		c.tsTime = tsTimeFieldOf(c.Options)
	}
	c.state.tsSpan.Store(decodeBucketSpan(d))
	c.state.tsSpanStored.Store(c.state.tsSpan.Load())
	c.Capped = d.Lookup("capped").Boolean()
	c.Size = d.Lookup("size").Int64()
	c.Max = d.Lookup("max").Int64()
	vals, err := d.Lookup("indexes").Array().Values()
	if err != nil {
		return nil, fmt.Errorf("catalog entry indexes: %w", err)
	}
	for _, v := range vals {
		id := v.Document()
		spec := IndexSpec{
			Name:   id.Lookup("name").StringValue(),
			Key:    append(bsoncore.Document(nil), id.Lookup("key").Document()...),
			Unique: id.Lookup("unique").Boolean(),
			Sparse: id.Lookup("sparse").Boolean(),
		}
		if hv, err := id.LookupErr("hidden"); err == nil {
			spec.Hidden = hv.Boolean()
		}
		if pv, err := id.LookupErr("prepareUnique"); err == nil {
			spec.PrepareUnique = pv.Boolean()
		}
		if pv, err := id.LookupErr("partialFilterExpression"); err == nil {
			spec.PartialFilterExpression = append(bsoncore.Document(nil), pv.Document()...)
		}
		if cv, err := id.LookupErr("collation"); err == nil {
			spec.Collation = append(bsoncore.Document(nil), cv.Document()...)
		}
		if wv, err := id.LookupErr("weights"); err == nil {
			spec.Weights = append(bsoncore.Document(nil), wv.Document()...)
			spec.DefaultLanguage = id.Lookup("default_language").StringValue()
			spec.LanguageOverride = id.Lookup("language_override").StringValue()
			spec.TextIndexVersion = id.Lookup("textIndexVersion").Int32()
		}
		if gv, err := id.LookupErr("geo2d"); err == nil {
			spec.Geo2D = append(bsoncore.Document(nil), gv.Document()...)
		}
		if tv, err := id.LookupErr("expireAfterSeconds"); err == nil {
			t := tv.Int64()
			spec.ExpireAfterSeconds = &t
		}
		ix, err := newIndex(uint64(id.Lookup("id").Int64()), spec)
		if err != nil {
			return nil, fmt.Errorf("catalog index %s: %w", spec.Name, err)
		}
		ix.Multikey = id.Lookup("multikey").Boolean()
		ix.KeyFormat = keyFormatCrossProduct // entries written before formats were recorded
		if fv, err := id.LookupErr("keyFormat"); err == nil && fv.Type == bsoncore.TypeInt32 {
			ix.KeyFormat = int(fv.Int32())
		}
		if pv, err := id.LookupErr("multikeyPaths"); err == nil {
			ps, _ := pv.Array().Values()
			for _, p := range ps {
				ix.MultikeyPaths = append(ix.MultikeyPaths, p.StringValue())
			}
		}
		c.Indexes = append(c.Indexes, ix)
	}
	c.SetClusteredFromOptions()
	return c, nil
}

// loadCatalog reads every collection entry and recovers record ids.
func (e *Engine) loadCatalog() error {
	cat := &catalog{dbs: map[string]map[string]*collection{}}
	maxID := uint64(0)
	err := storage.CollectionEntries(e.db.Reader(), func(entry []byte) error {
		c, err := decodeCollection(entry)
		if err != nil {
			return err
		}
		if c.Clustered {
			c.state.rids, err = storage.ClusteredRecordIDs(e.db.Reader(), c.ID)
		} else {
			c.state.rids, err = storage.OpenRecordIDs(e.db.Reader(), c.ID)
		}
		if err != nil {
			return err
		}
		maxID = max(maxID, c.ID)
		for _, ix := range c.Indexes {
			maxID = max(maxID, ix.ID)
		}
		cat.put(c)
		return nil
	})
	if err != nil {
		return err
	}
	// A crash between an index build's ingestion and the catalog commit
	// that publishes it leaves entries under an id the catalog never held;
	// clear them before the id is handed out again.
	if err := e.db.ClearIndexesAbove(maxID); err != nil {
		return err
	}
	e.nextID.Store(maxID)
	e.cat.Store(cat)
	return nil
}

// allocID returns a fresh collection or index id. Ids are never reused
// within a run; at Open the counter restarts above the highest id in the
// catalog, and dropped ids' data was range-deleted before.
func (e *Engine) allocID() uint64 { return e.nextID.Add(1) }

// sortedDBNames returns the database names in order.
func (c *catalog) sortedDBNames() []string {
	out := make([]string, 0, len(c.dbs))
	for db := range c.dbs {
		out = append(out, db)
	}
	sort.Strings(out)
	return out
}
