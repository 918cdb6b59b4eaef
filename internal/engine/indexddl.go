package engine

import (
	"bytes"
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/storage"
)

// DefaultIndexName returns MongoDB's default name for a key pattern:
// field_direction pairs joined by underscores, such as "a_1_b_-1"
// (bsonutil.DefaultIndexName).
func DefaultIndexName(key bsoncore.Document) string { return bsonutil.DefaultIndexName(key) }

// CreateIndex creates an index on db.coll (creating the collection if
// needed) and builds it over the existing documents. created is false when
// an identical index already exists.
func (e *Engine) CreateIndex(db, coll string, spec IndexSpec) (created bool, err error) {
	return e.CreateIndexCtx(context.Background(), db, coll, spec)
}

// CreateIndexCtx is CreateIndex inside the multi-document transaction ctx
// carries, if any: MongoDB 7.0 then allows new indexes only on a
// collection the transaction created (or creates now) while it is empty
// (txn_ddl.go).
func (e *Engine) CreateIndexCtx(ctx context.Context, db, coll string, spec IndexSpec) (created bool, err error) {
	n, err := e.CreateIndexesCtx(ctx, db, coll, []IndexSpec{spec})
	return n > 0, err
}

// CreateIndexesCtx creates the indexes of one createIndexes command on
// db.coll (creating the collection if needed), all or none, as mongod
// builds the indexes of one command together: one scan of the records
// feeds every new index's sort, and one commit publishes them. A spec
// identical to an existing index (or to an earlier one of specs) is
// skipped; created is the number of indexes built. Inside a transaction
// the rules of CreateIndexCtx apply.
func (e *Engine) CreateIndexesCtx(ctx context.Context, db, coll string, specs []IndexSpec) (created int, err error) {
	if err := e.checkOpen(); err != nil {
		return 0, err
	}
	specs = append([]IndexSpec(nil), specs...)
	for i := range specs {
		if err := normalizeIndexSpec(&specs[i]); err != nil {
			return 0, err
		}
	}
	tx := TxnFrom(ctx)
	c, err := e.lockCollTx(tx, db, coll, true)
	if err != nil {
		return 0, err
	}
	defer c.state.mu.Unlock()
	if owner := c.state.txnOwner; owner != nil && owner != tx {
		return 0, checkTxnWrite(tx, c)
	}
	// Each spec is checked against the indexes the collection has and
	// those the earlier specs add.
	all := append([]*index(nil), c.Indexes...)
	var added []*index
	for _, spec := range specs {
		if c.Clustered && keyEqual(spec.Key, idKeyPattern) {
			continue // the clustered index is {_id: 1} already
		}
		explicit := spec.Collation != nil
		if spec.Collation, err = resolveIndexCollation(c, spec.Collation); err != nil {
			return 0, err
		}
		if explicit && keyEqual(spec.Key, idKeyPattern) && !bsonEqualDoc(spec.Collation, collectionCollation(c)) {
			return 0, errs.New(errs.CannotCreateIndex, "_id index must have the collection default collation")
		}
		if err := collationSupported(spec); err != nil {
			return 0, err
		}
		if err := textIndexConflict(all, spec); err != nil {
			return 0, err
		}
		if err := indexConflict(all, spec); err != nil {
			return 0, err
		}
		if indexExists(all, spec) || spec.Name == "_id_" {
			continue
		}
		if tx != nil {
			if err := e.checkTxnIndexBuild(tx, c); err != nil {
				return 0, err
			}
		}
		if len(all) >= maxIndexesPerCollection {
			return 0, errs.New(errs.CannotCreateIndex, "add index fails, too many indexes for %s.%s key:%s", db, coll, bsonutil.FormatDoc(spec.Key, msgStyle))
		}
		ix, err := newIndex(e.allocID(), spec)
		if err != nil {
			return 0, err
		}
		if c.Clustered && ix.Text != nil {
			return 0, errs.New(errs.NotImplemented, "text indexes on a clustered collection are not supported by Lode")
		}
		ix.InClustered = c.Clustered
		all = append(all, ix)
		added = append(added, ix)
	}
	if len(added) == 0 {
		return 0, nil
	}
	for _, ix := range added {
		e.indexUse.get(ix.ID) // $indexStats counts from the creation (indexaccess.go)
	}
	n := c.copyMeta()
	at := make([]int, len(added))
	for j := range added {
		at[j] = len(n.Indexes) + j
	}
	n.Indexes = append(n.Indexes, added...)
	if err := e.buildIndexes(ctx, n, at); err != nil {
		// Remove entries of batches the failed build already committed.
		b := e.db.NewBatch()
		for _, ix := range added {
			_ = storage.DeleteIndexEntries(b, ix.ID)
		}
		if _, cerr := e.db.Commit(b); cerr != nil {
			e.log.Error("cleaning up failed index build", "ns", n.NS(), "err", cerr)
		}
		return 0, err
	}
	if tc := tx.collFor(c.ID); tc != nil {
		// The transaction's own build: its later writes stage entries
		// for the new index, so this is the index set to commit against.
		tc.indexIDs = indexIDs(e.cat.Load().lookup(db, coll))
	}
	return len(added), nil
}

// maxIndexesPerCollection is mongod's kMaxNumIndexesAllowed: the
// indexes of one collection as listIndexes shows them, its _id (or
// clustered) index included.
const maxIndexesPerCollection = 64

// maxCompoundKeys is the most fields a key pattern may have, mongod's
// (its Ordering holds one bit per field; 13103 past it).
const maxCompoundKeys = 32

// normalizeIndexSpec fills in spec's default name, copies its documents
// and checks what needs no collection: the key pattern (at most
// maxCompoundKeys fields) and the reserved _id_ name.
func normalizeIndexSpec(spec *IndexSpec) error {
	if spec.Name == "" {
		spec.Name = DefaultIndexName(spec.Key)
	}
	spec.Key = append(bsoncore.Document(nil), spec.Key...)
	if spec.PartialFilterExpression != nil {
		spec.PartialFilterExpression = append(bsoncore.Document(nil), spec.PartialFilterExpression...)
		// mongod's checks of a new partial index, in its order.
		if spec.Sparse {
			return errs.New(errs.CannotCreateIndex, "cannot mix \"partialFilterExpression\" and \"sparse\" options")
		}
		if err := query.CheckPartialFilter(spec.PartialFilterExpression); err != nil {
			return err
		}
		if keyEqual(spec.Key, idKeyPattern) {
			return errs.New(errs.CannotCreateIndex, "_id index cannot be a partial index")
		}
	}
	if spec.Sparse && keyEqual(spec.Key, idKeyPattern) {
		return errs.New(errs.CannotCreateIndex, "_id index cannot be sparse")
	}
	if err := normalizeTextSpec(spec); err != nil {
		return err
	}
	fields, err := parseKeyPattern(spec.Key)
	if err != nil {
		return err
	}
	if len(fields) > maxCompoundKeys {
		return errs.New(errs.Location13103, "too many compound keys")
	}
	if spec.Name == "_id_" && !keyEqual(spec.Key, idKeyPattern) {
		return errs.New(errs.BadValue, "The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}, found key: %s", bsonutil.FormatDoc(spec.Key, msgStyle))
	}
	return nil
}

// keysPerDocSample is the number of documents after which an index build
// estimates its keys per document.
const keysPerDocSample = 4096

// buildIndexes adds the entries of the indexes n.Indexes[i] for each i
// of at, for every document, and publishes n. The writer lock is held, so no document changes meanwhile.
//
// The build is a sort, as in mongod and PostgreSQL: one scan of the
// records generates every key into a storage.SortedLoad, which sorts them
// (spilling runs beyond its memory budget) and writes them in key order:
// as sstables ingested into the LSM when there are many, through one batch
// when few. The entries of a not-yet-published index are invisible to
// readers; CreateIndex range-deletes them if the build fails, and Open
// removes those of an index a crash left out of the catalog.
func (e *Engine) buildIndexes(ctx context.Context, n *collection, at []int) error {
	only := n.copyMeta()
	only.Indexes = make([]*index, len(at))
	for j, i := range at {
		only.Indexes[j] = n.Indexes[i]
	}
	t := e.newWriteBatch(only)
	defer t.abort()
	// The indexes of one command share the sort memory, as they share
	// mongod's maxIndexBuildMemoryUsageMegabytes.
	loads := make([]*storage.IndexLoad, len(only.Indexes))
	for j, ix := range only.Indexes {
		var check func(prevKS, ks []byte, rid storage.RecordID) error
		if ix.Unique {
			check = func(prevKS, ks []byte, rid storage.RecordID) error { return e.buildDupCheck(n, ix, prevKS, ks, rid) }
		}
		loads[j] = e.db.NewIndexLoad(ix.ID, check)
		defer loads[j].Abort()
		loads[j].SetBudget(storage.DefaultSortBudget / len(loads))
	}
	prog := progressFrom(ctx)
	// The total for progress and the sort's size hint: the count when
	// known, else the highest record id (exact for a collection never
	// deleted from; mongod's figure is an estimate too). The scan below
	// counts, and sets the count when it was unknown.
	st := n.state
	total := st.rids.Taken()
	if st.statsValid {
		total = st.count
	}
	prog.set(progressScan, 0, total)
	for _, load := range loads {
		load.SizeHint(int(total))
	}
	cur := &storage.RecordCursor{}
	var err error
	if n.Clustered {
		err = cur.OpenClustered(e.db.Reader(), n.ID, nil, nil, false)
	} else {
		err = cur.Open(e.db.Reader(), n.ID, false)
	}
	if err != nil {
		return err
	}
	defer cur.Close()
	var scanned, size int64
	var vbuf []byte
	var rid storage.RecordID
	// addKey adds one key of index j (head: the length of its first
	// field) for the record at rid.
	addKey := func(j int, ix *index, ks, tb []byte, head int) error {
		if n.Clustered {
			// The entry carries the record's cluster key.
			vbuf = storage.ClusteredIndexLoadValue(vbuf, tb, cur.Key())
			tb = vbuf
		}
		t.noteIndexBytes(ix.ID, storage.IndexEntryOverhead+len(ks)+len(tb), false)
		if len(ix.Fields) == 1 {
			// A compound index's entries may be grouped on their first
			// field; a single field's grouping is the load's own.
			head = 0
		}
		return loads[j].Add(ks, rid, tb, head)
	}
	for r, doc, ok := cur.Next(); ok; r, doc, ok = cur.Next() {
		rid = r
		size += int64(len(doc))
		for j, ix := range only.Indexes {
			// The generator's keys go to the load as they are (it copies
			// them), not through the write path's staging; they are
			// valid until the next index's.
			if ks, tb, head, ok := t.g.FlatKey(ix, doc); ok {
				// One key of top-level fields, the common case.
				if err := addKey(j, ix, ks, tb, head); err != nil {
					return err
				}
				continue
			}
			keys, paths, skip, err := t.g.Keys(ix, doc)
			if err != nil {
				return err
			}
			if skip {
				keys = nil
			}
			if len(keys) > 0 && len(paths) > 0 && !hasPaths(t.c.Indexes[j].MultikeyPaths, paths) {
				t.markMultikey(map[int][]string{j: append([]string(nil), paths...)})
			}
			for k, ks := range keys {
				if err := addKey(j, ix, ks, t.g.TypeBits(k), t.g.HeadLen(k)); err != nil {
					return err
				}
			}
		}
		scanned++
		if scanned == keysPerDocSample && total > scanned {
			// The first documents show how many keys a document makes;
			// an index with several (multikey) has its entry tables
			// sized for the whole scan now rather than regrown a quarter
			// at a time, each time copied into memory the process must
			// fault in anew (docs/benchmarks.md, twenty-second session).
			for _, load := range loads {
				if k := load.Keys(); k > scanned {
					load.SizeHint(int(k*total/scanned - k))
				}
			}
		}
		if scanned&1023 == 0 {
			prog.set(progressScan, scanned, max(total, scanned))
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if err := cur.Err(); err != nil {
		return err
	}
	cur.Close()
	if !st.statsValid {
		st.count, st.dataSize, st.statsValid = scanned, size, true
		st.docCount.Store(scanned)
	}
	// Progress counts the keys of every index together.
	var keys, before int64
	for _, load := range loads {
		keys += load.Keys()
	}
	prog.set(progressInsert, 0, keys)
	for _, load := range loads {
		base := before
		load.OnEmitted(func(done, _ int64) { prog.set(progressInsert, base+done, keys) })
		if _, err := load.Finish(ctx); err != nil {
			return err
		}
		before += load.Keys()
	}
	t.built = make([]*index, len(at))
	for j, i := range at {
		n.Indexes[i] = t.c.Indexes[j]
		t.built[j] = n.Indexes[i]
	}
	t.c = n
	t.metaDirty = true
	for _, ix := range t.built {
		t.ops = append(t.ops, e.commandEntry(n.DB, &n.UUID, createIndexesO(n.Name, ix.Spec()))...)
	}
	return t.commit()
}

// buildDupCheck refuses two neighbouring entries of a unique index with
// the same keystring, as mongod's bulk builder does, naming the values of
// the second document.
func (e *Engine) buildDupCheck(c *collection, ix *index, pks, cks []byte, rid storage.RecordID) error {
	if !bytes.Equal(pks, cks) {
		return nil
	}
	if c.Clustered {
		// Its records are not reached by RecordID: name no values.
		return dupKeyError(c, ix, nil)
	}
	doc, found, err := storage.GetRecord(e.db.Reader(), c.ID, rid, nil)
	if err != nil {
		return err
	}
	if !found {
		return dupKeyError(c, ix, nil)
	}
	return dupKeyError(c, ix, indexkey.Values(ix, doc, cks))
}

// ListIndexes returns the indexes of db.coll in creation order.
func (e *Engine) ListIndexes(db, coll string) ([]IndexInfo, error) {
	if e.isOplog(db, coll) {
		return nil, nil // the oplog has no index
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil || !visibleTo(c, nil) { // listIndexes runs outside transactions
		c = nil
	}
	if c == nil {
		return nil, errs.New(errs.NamespaceNotFound, "ns does not exist: %s.%s", db, coll)
	}
	out := make([]IndexInfo, 0, len(c.Indexes))
	for _, ix := range c.Indexes {
		out = append(out, IndexInfo{
			IndexSpec: ix.Spec(), ID: ix.ID, Multikey: ix.Multikey,
			MultikeyPaths: append([]string(nil), ix.MultikeyPaths...),
		})
		out[len(out)-1].Accesses, out[len(out)-1].AccessesSince = e.IndexAccesses(ix.ID)
		if ix.Clustered {
			out[len(out)-1].Clustered = clusteredListSpec(c)
		}
	}
	return out, nil
}

// DropIndex drops the index called name from db.coll.
func (e *Engine) DropIndex(db, coll, name string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	c, err := e.lockColl(db, coll, false)
	if err != nil {
		return err
	}
	if c == nil {
		return errs.New(errs.NamespaceNotFound, "ns not found %s.%s", db, coll)
	}
	defer c.state.mu.Unlock()
	if name == "_id_" {
		return errs.New(errs.InvalidOptions, "cannot drop _id index")
	}
	pos := -1
	for i, ix := range c.Indexes {
		if ix.Name == name {
			pos = i
		}
	}
	if pos < 0 {
		return errs.New(errs.IndexNotFound, "index not found with name [%s]", name)
	}
	n := c.copyMeta()
	ix := n.Indexes[pos]
	n.Indexes = append(n.Indexes[:pos], n.Indexes[pos+1:]...)
	b := e.db.NewBatch()
	_ = storage.DeleteIndexEntries(b, ix.ID)
	_ = storage.SetCollectionEntry(b, n.ID, encodeCollection(n))
	o := cmdDoc("dropIndexes", c.Name, "index", ix.Name)
	ops := e.commandEntry(c.DB, &c.UUID, o)
	if len(ops) > 0 {
		ops[0].O2 = ix.Spec().Doc()
	}
	// Published before the entries go (see snapshotOf): a reader that
	// still plans with the index reads a snapshot that has its entries.
	e.publish(n)
	if err := e.commitLogged(b, ops...); err != nil {
		e.publish(c)
		return err
	}
	delete(c.state.idxBytes, ix.ID)
	return nil
}

// Index comparison outcomes, as MongoDB 7.0's IndexDescriptor compares a
// requested index with an existing one.
const (
	// indexDifferent: the key pattern or an identifying option (unique,
	// sparse, partialFilterExpression) differs; both may coexist under
	// different names.
	indexDifferent = iota
	// indexEquivalent: same key and identifying options, but another
	// option (expireAfterSeconds) differs; they cannot coexist.
	indexEquivalent
	// indexIdentical: every option is the same.
	indexIdentical
)

// compareIndex compares a requested spec with an existing index.
func compareIndex(ix *index, spec IndexSpec) int {
	// Any index of the key {_id: 1} is unique, as mongod's descriptor
	// takes it: a second one under another name is the _id index again.
	idKey := keyEqual(spec.Key, idKeyPattern)
	if !keyEqual(ix.Key, spec.Key) || (ix.Unique || idKey) != (spec.Unique || idKey) || ix.Sparse != spec.Sparse ||
		(ix.Partial == nil) != (spec.PartialFilterExpression == nil) ||
		!bsonEqualDoc(ix.Partial, spec.PartialFilterExpression) ||
		!bsonEqualDoc(ix.Collation, spec.Collation) {
		return indexDifferent
	}
	if !ttlEqual(ix.TTL, spec.ExpireAfterSeconds) || !ix.SameGrid2D(spec) {
		return indexEquivalent
	}
	return indexIdentical
}

// indexConflict returns MongoDB 7.0's error when spec cannot be created
// beside the existing indexes: under an existing index's name with another
// key or identifying option (86 IndexKeySpecsConflict), or equivalent to
// an existing index but not identical to it, or identical under another
// name (85 IndexOptionsConflict).
func indexConflict(indexes []*index, spec IndexSpec) error {
	for _, ix := range indexes {
		if ix.Name != spec.Name {
			continue
		}
		switch compareIndex(ix, spec) {
		case indexDifferent:
			return errs.New(errs.IndexKeySpecsConflict, "An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: %s, existing index: %s", specString(spec), specString(ix.Spec()))
		case indexEquivalent:
			return errs.New(errs.IndexOptionsConflict, "An equivalent index already exists with the same name but different options. Requested index: %s, existing index: %s", specString(spec), specString(ix.Spec()))
		}
		return nil
	}
	for _, ix := range indexes {
		switch compareIndex(ix, spec) {
		case indexEquivalent:
			return errs.New(errs.IndexOptionsConflict, "An equivalent index already exists with a different name and options. Requested index: %s, existing index: %s", specString(spec), specString(ix.Spec()))
		case indexIdentical:
			return errs.New(errs.IndexOptionsConflict, "Index already exists with a different name: %s", ix.Name)
		}
	}
	return nil
}

// indexExists reports whether an index identical to spec exists under
// spec's name (creating it again is a no-op).
func indexExists(indexes []*index, spec IndexSpec) bool {
	for _, ix := range indexes {
		if ix.Name == spec.Name && compareIndex(ix, spec) == indexIdentical {
			return true
		}
	}
	return false
}

func specString(s IndexSpec) string {
	b := bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", s.Key).AppendString("name", s.Name)
	if s.Unique {
		b.AppendBoolean("unique", true)
	}
	if s.Sparse {
		b.AppendBoolean("sparse", true)
	}
	if s.PartialFilterExpression != nil {
		b.AppendDocument("partialFilterExpression", s.PartialFilterExpression)
	}
	if s.ExpireAfterSeconds != nil {
		b.AppendInt64("expireAfterSeconds", *s.ExpireAfterSeconds)
	}
	if s.Collation != nil {
		b.AppendDocument("collation", s.Collation)
	}
	return bsonutil.FormatDoc(b.Build(), msgStyle)
}

// keyEqual compares key patterns field by field (names, order and
// numeric direction).
func keyEqual(a, b bsoncore.Document) bool {
	ea, _ := a.Elements()
	eb, _ := b.Elements()
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i].Key() != eb[i].Key() || bsonutil.Compare(ea[i].Value(), eb[i].Value()) != 0 {
			return false
		}
	}
	return true
}

func bsonEqualDoc(a, b bsoncore.Document) bool {
	if len(a) <= 5 && len(b) <= 5 {
		return true
	}
	return bsonutil.CompareDocuments(a, b) == 0
}

func ttlEqual(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
