package engine

import (
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/storage"
)

// maxNamespaceLen is MongoDB's limit on "db.collection".
const maxNamespaceLen = 255

// maxDBNameLen is MongoDB's limit on database names (64 bytes, exclusive).
const maxDBNameLen = 63

// ValidateDBName checks a database name with MongoDB's rules.
func ValidateDBName(db string) error {
	if db == "" {
		return errs.New(errs.InvalidNamespace, "Invalid database name: ''")
	}
	if len(db) > maxDBNameLen {
		return errs.New(errs.InvalidNamespace, "db name is too long: '%s'", db)
	}
	if strings.ContainsAny(db, "/\\. \"$\x00") {
		return errs.New(errs.InvalidNamespace, "Invalid database name: '%s'", db)
	}
	return nil
}

// ValidateNamespace checks a database and collection name for use by a
// write or create.
func ValidateNamespace(db, coll string) error {
	if err := ValidateDBName(db); err != nil {
		return err
	}
	if coll == "" || coll[0] == '.' || strings.ContainsAny(coll, "$\x00") {
		return errs.New(errs.InvalidNamespace, "Invalid namespace specified '%s'", db+"."+coll)
	}
	if len(db)+1+len(coll) > maxNamespaceLen {
		return errs.New(errs.InvalidNamespace, "Fully qualified namespace is too long. Namespace: %s Max: %d", db+"."+coll, maxNamespaceLen)
	}
	return nil
}

// validateWrite is validateUserWrite, except that a System write may go
// to the collections internal/auth keeps.
func validateWrite(db, coll string, opts WriteOptions) error {
	if opts.System && db == "admin" && (coll == "system.users" || coll == "system.roles") {
		return nil
	}
	if opts.System && db == "local" && coll == QueryStatsColl {
		return nil
	}
	return validateUserWrite(db, coll)
}

// QueryStatsColl is the collection of the local database where the server
// keeps its query statistics across restarts (internal/server
// querystats_store.go). local is not replicated and mongodump skips it.
const QueryStatsColl = "system.lode.queryStats"

// EnsureSystemCollection creates admin.system.users or admin.system.roles
// (internal/auth's), or local's QueryStatsColl, if it does not exist; user
// commands cannot create them.
func (e *Engine) EnsureSystemCollection(db, coll string) error {
	if err := validateWrite(db, coll, WriteOptions{System: true}); err != nil {
		return err
	}
	if e.cat.Load().lookup(db, coll) != nil {
		return nil
	}
	if _, _, err := e.createCollection(db, coll, CreateOptions{}, nil); err != nil && !errs.Is(err, errs.NamespaceExists) {
		return err
	}
	return nil
}

// validateUserWrite additionally rejects writes to system collections.
func validateUserWrite(db, coll string) error {
	if err := ValidateNamespace(db, coll); err != nil {
		return err
	}
	if err := checkNotOplog(db, coll); err != nil {
		return err
	}
	if strings.HasPrefix(coll, "system.") {
		switch {
		case coll == "system.js", coll == "system.views", coll == "system.profile", coll == "system.buckets":
		case strings.HasPrefix(coll, "system.buckets."):
			// A time series collection's buckets: written by its inserts
			// and, as in mongod, directly (mongorestore).
		case db == "config" && coll == "system.sessions":
			// The logical sessions collection, a legal client system
			// namespace in mongod (the server's session cache is flushed
			// to it).
		default:
			return errs.New(errs.InvalidNamespace, "Invalid system namespace: %s.%s", db, coll)
		}
	}
	return nil
}

// ListDatabases returns every database with at least one collection.
func (e *Engine) ListDatabases() ([]DatabaseInfo, error) {
	cat := e.cat.Load()
	var out []DatabaseInfo
	for _, db := range cat.sortedDBNames() {
		out = append(out, DatabaseInfo{Name: db, SizeOnDisk: e.DatabaseSize(db), Empty: false})
	}
	return out, nil
}

// ListCollections returns the collections of db sorted by name.
func (e *Engine) ListCollections(db string) ([]CollectionInfo, error) {
	return e.ListCollectionsCtx(context.Background(), db)
}

// ListCollectionsCtx is ListCollections as seen from ctx's transaction:
// a collection another open transaction created is not listed yet.
func (e *Engine) ListCollectionsCtx(ctx context.Context, db string) ([]CollectionInfo, error) {
	cat := e.cat.Load()
	colls := cat.dbs[db]
	out := make([]CollectionInfo, 0, len(colls))
	tx := TxnFrom(ctx)
	for _, c := range colls {
		if !visibleTo(c, tx) {
			continue
		}
		opts := c.Options
		if opts == nil {
			opts = emptyDoc
		}
		out = append(out, CollectionInfo{Name: c.Name, Type: "collection", Options: opts, UUID: c.UUID})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

var emptyDoc = bsoncore.Document{5, 0, 0, 0, 0}

// CreateCollection creates db.coll explicitly. As in MongoDB 7.0
// (SERVER-60064), creating a collection that exists with the same options
// succeeds; with different options it fails with NamespaceExists. System
// namespaces a client may not create get InvalidNamespace.
func (e *Engine) CreateCollection(db, coll string, opts CreateOptions) error {
	return e.CreateCollectionCtx(context.Background(), db, coll, opts)
}

// CreateCollectionCtx is CreateCollection inside the multi-document
// transaction ctx carries, if any: the collection then belongs to the
// transaction until it ends and is dropped if it aborts (txn_ddl.go).
func (e *Engine) CreateCollectionCtx(ctx context.Context, db, coll string, opts CreateOptions) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	if err := validateUserWrite(db, coll); err != nil {
		return err
	}
	if opts.Capped && opts.Size <= 0 {
		return errs.New(errs.InvalidOptions, "the 'size' field is required when 'capped' is true")
	}
	if err := checkValidatorNamespace(db, coll, opts.Raw); err != nil {
		return err
	}
	tx := TxnFrom(ctx)
	c, created, err := e.createCollection(db, coll, opts, tx)
	if err != nil {
		return err
	}
	if !created && !sameCreateOptions(c.Options, opts.Raw) {
		return errs.New(errs.NamespaceExists, "namespace %s.%s already exists, but with different options: %s",
			db, coll, renderCollOptions(c))
	}
	return nil
}

// sameCreateOptions reports whether two create option documents hold the
// same fields with equal values, in any order.
func sameCreateOptions(a, b bsoncore.Document) bool {
	ae, _ := a.Elements()
	be, _ := b.Elements()
	if len(ae) != len(be) {
		return false
	}
	for _, x := range ae {
		y, err := b.LookupErr(x.Key())
		if err != nil || !bsonutil.Equal(x.Value(), y) {
			return false
		}
	}
	return true
}

// renderCollOptions renders a collection's options as mongod does in its
// NamespaceExists message: { uuid: UUID("..."), capped: true, ... }.
func renderCollOptions(c *collection) string {
	var sb strings.Builder
	u := hex.EncodeToString(c.UUID[:])
	sb.WriteString(`{ uuid: UUID("` + u[0:8] + "-" + u[8:12] + "-" + u[12:16] + "-" + u[16:20] + "-" + u[20:] + `")`)
	elems, _ := c.Options.Elements()
	for _, el := range elems {
		sb.WriteString(", " + el.Key() + ": ")
		bsonutil.AppendValue(&sb, el.Value(), msgStyle)
	}
	sb.WriteString(" }")
	return sb.String()
}

// createCollection creates db.coll with its _id index unless it exists.
// It returns the current collection and whether it created it.
// A collection created inside transaction tx (non-nil) belongs to tx until
// it ends (collState.txnOwner).
func (e *Engine) createCollection(db, coll string, opts CreateOptions, tx *Txn) (*collection, bool, error) {
	e.catMu.Lock()
	defer e.catMu.Unlock()
	cat := e.cat.Load()
	if c := cat.lookup(db, coll); c != nil {
		return c, false, nil
	}
	uuid := newUUID()
	if opts.UUID != nil {
		if other := cat.byUUID(*opts.UUID); other != nil {
			return nil, false, errs.New(errs.NotImplemented, "cannot create %s.%s with the UUID of the existing collection %s.%s: Lode does not move a collection to the name a UUID is given with", db, coll, other.DB, other.Name)
		}
		uuid = *opts.UUID
	}
	c := &collection{
		collDesc: collDesc{DB: db, Name: coll, ID: e.allocID(), UUID: uuid,
			Capped: opts.Capped, Size: opts.Size, Max: opts.Max},
		state: &collState{statsValid: true, idxValid: true, commits: &txnCommits{}, txnOwner: tx},
	}
	if len(opts.Raw) > 5 {
		c.Options = append(bsoncore.Document(nil), opts.Raw...)
		c.images = imagesEnabled(c.Options)
		c.validator = validatorOf(c.Options)
		c.Collator = collatorOf(c.Options)
		c.tsTime = tsTimeFieldOf(c.Options) // a new buckets collection: no bucket yet (tsSpan 0)
	}
	idSpec := IndexSpec{Name: "_id_", Key: idKeyPattern, Unique: true}
	if c.Collator != nil {
		idSpec.Collation = c.Collator.Spec().Document()
	}
	if ci, err := c.Options.LookupErr("clusteredIndex"); err == nil && ci.Type == bsoncore.TypeEmbeddedDocument {
		if n, ok := ci.Document().Lookup("name").StringValueOK(); ok {
			idSpec.Name = n // the clustered index's own name
		}
	}
	idIx, err := newIndex(e.allocID(), idSpec)
	if err != nil {
		return nil, false, err
	}
	c.Indexes = []*index{idIx}
	c.SetClusteredFromOptions()
	b := e.db.NewBatch()
	if err := storage.SetCollectionEntry(b, c.ID, encodeCollection(c)); err != nil {
		b.Close()
		return nil, false, fmt.Errorf("create collection: %w", err)
	}
	ops := e.commandEntry(db, &c.UUID, createO(coll, c.Options))
	if coll == "system.profile" {
		ops = nil // the profiler's collection is not replicated (logged)
	}
	if err := e.commitLogged(b, ops...); err != nil {
		return nil, false, err
	}
	n := cat.clone()
	n.put(c)
	e.cat.Store(n)
	if tx != nil {
		c.state.uncommitted.Store(tx)
		tx.noteCreated(c)
	}
	return c, true, nil
}

var idKeyPattern = bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()

// DropCollection drops db.coll with its records and index entries.
func (e *Engine) DropCollection(db, coll string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	if err := checkNotOplogDrop(db, coll); err != nil {
		return err
	}
	c, err := e.lockColl(db, coll, false)
	if err != nil {
		return err
	}
	if c == nil {
		return errs.New(errs.NamespaceNotFound, "ns not found")
	}
	defer c.state.mu.Unlock()
	return e.dropLocked(c)
}

// dropLocked removes c; the caller holds c.state.mu.
func (e *Engine) dropLocked(c *collection) error {
	b := e.db.NewBatch()
	deleteCollection(b, c)
	e.catMu.Lock()
	defer e.catMu.Unlock()
	if err := e.commitLogged(b, e.commandEntry(c.DB, &c.UUID, cmdDoc("drop", c.Name))...); err != nil {
		return err
	}
	c.state.dropped = true
	c.state.hints.clear()
	n := e.cat.Load().clone()
	n.remove(c.DB, c.Name)
	e.cat.Store(n)
	e.namespaceGone(c, "")
	return nil
}

// deleteCollection adds the removal of c's catalog entry, records and
// index entries to b.
func deleteCollection(b *storage.Batch, c *collection) {
	_ = storage.DeleteCollectionEntry(b, c.ID)
	_ = storage.DeleteRecords(b, c.ID)
	if c.Clustered {
		_ = storage.DeleteClusteredIDs(b, c.ID)
	}
	for _, ix := range c.Indexes {
		_ = storage.DeleteIndexEntries(b, ix.ID)
	}
}

// DropDatabase drops every collection of db. Dropping a missing database
// succeeds.
func (e *Engine) DropDatabase(db string) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	dropped := 0
	for _, c := range e.cat.Load().dbs[db] {
		lc, err := e.lockColl(db, c.Name, false)
		if err != nil {
			return err
		}
		if lc == nil {
			continue
		}
		err = e.dropLocked(lc)
		lc.state.mu.Unlock()
		if err != nil {
			return err
		}
		dropped++
	}
	// A database without collections does not exist: nothing to log.
	if e.oplog == nil || db == "local" || dropped == 0 {
		return nil
	}
	return e.commitLogged(e.db.NewBatch(), e.commandEntry(db, nil, cmdDoc("dropDatabase", int32(1)))...)
}

// RenameCollection renames fromDB.fromColl to toDB.toColl. Records and
// index entries are keyed by numeric ids, so only the catalog changes.
func (e *Engine) RenameCollection(fromDB, fromColl, toDB, toColl string, dropTarget bool) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	if err := ValidateNamespace(toDB, toColl); err != nil {
		return err
	}
	if fromDB == toDB && fromColl == toColl {
		return errs.New(errs.IllegalOperation, "Can't rename a collection to itself")
	}
	src, dst, err := e.lockRenamePair(fromDB, fromColl, toDB, toColl, dropTarget)
	if err != nil {
		return err
	}
	defer src.state.mu.Unlock()
	if dst != nil {
		defer dst.state.mu.Unlock()
	}
	moved := src.copyMeta()
	moved.DB, moved.Name = toDB, toColl
	moved.state = &collState{
		rids: src.state.rids, statsValid: src.state.statsValid,
		count: src.state.count, dataSize: src.state.dataSize,
		idxValid: src.state.idxValid, idxBytes: maps.Clone(src.state.idxBytes),
		commits: src.state.commits,
	}
	moved.state.docCount.Store(src.state.count)
	e.catMu.Lock()
	defer e.catMu.Unlock()
	if cur := e.cat.Load().lookup(toDB, toColl); cur != nil && (dst == nil || cur.ID != dst.ID) {
		return errs.New(errs.NamespaceExists, "target namespace exists")
	}
	b := e.db.NewBatch()
	if dst != nil {
		// The target is dropped in the rename's own batch and entry, as
		// mongod logs a rename over a collection: one renameCollection
		// entry whose dropTarget names the dropped collection.
		deleteCollection(b, dst)
	}
	_ = storage.SetCollectionEntry(b, moved.ID, encodeCollection(moved))
	var ops []oplog.Entry
	if fromDB != "local" && toDB != "local" {
		kv := []any{"renameCollection", fromDB + "." + fromColl, "to", toDB + "." + toColl, "stayTemp", false}
		if dst != nil {
			// As mongod's, the entry names the collection the rename
			// replaced by its UUID.
			kv = append(kv, "dropTarget", bsoncore.Value{Type: bsoncore.TypeBinary, Data: bsoncore.AppendBinary(nil, 4, dst.UUID[:])})
		}
		ops = e.commandEntry(fromDB, &src.UUID, cmdDoc(kv...))
	}
	if err := e.commitLogged(b, ops...); err != nil {
		return err
	}
	src.state.dropped = true
	n := e.cat.Load().clone()
	if dst != nil {
		dst.state.dropped = true
		dst.state.hints.clear()
		n.remove(toDB, toColl)
	}
	n.remove(fromDB, fromColl)
	n.put(moved)
	e.cat.Store(n)
	if dst != nil {
		e.namespaceGone(dst, "")
	}
	e.namespaceGone(src, toDB+"."+toColl)
	return nil
}

// lockRenamePair locks the source of a rename and, when it exists and
// dropTarget is set, the target too. Two collections are locked in
// collection-id order, the order a transaction commit locks them in, so a
// rename that drops its target cannot deadlock with a commit that wrote
// both. The source is returned locked; the target (nil when it does not
// exist) is returned locked for the caller to drop.
func (e *Engine) lockRenamePair(fromDB, fromColl, toDB, toColl string, dropTarget bool) (src, dst *collection, err error) {
	for {
		cat := e.cat.Load()
		ms, md := cat.lookup(fromDB, fromColl), cat.lookup(toDB, toColl)
		if ms == nil {
			return nil, nil, errs.New(errs.NamespaceNotFound, "Source collection %s.%s does not exist", fromDB, fromColl)
		}
		if md != nil && !dropTarget {
			return nil, nil, errs.New(errs.NamespaceExists, "target namespace exists")
		}
		if md == nil {
			if src, err = e.lockColl(fromDB, fromColl, false); err != nil || src == nil {
				if err == nil {
					continue // dropped meanwhile: report it on the next pass
				}
				return nil, nil, err
			}
			return src, nil, nil
		}
		first, second := [2]string{fromDB, fromColl}, [2]string{toDB, toColl}
		if md.ID < ms.ID {
			first, second = second, first
		}
		a, err := e.lockColl(first[0], first[1], false)
		if err != nil {
			return nil, nil, err
		}
		b, err := e.lockColl(second[0], second[1], false)
		if err != nil {
			if a != nil {
				a.state.mu.Unlock()
			}
			return nil, nil, err
		}
		if md.ID < ms.ID {
			src, dst = b, a
		} else {
			src, dst = a, b
		}
		if src != nil && dst != nil && src.ID == ms.ID && dst.ID == md.ID {
			return src, dst, nil
		}
		// The catalog changed between the lookup and the locks: retry.
		if a != nil {
			a.state.mu.Unlock()
		}
		if b != nil {
			b.state.mu.Unlock()
		}
	}
}

// lockColl returns the current metadata of db.coll with its writer lock
// held. When the collection does not exist it is created if create is set;
// otherwise lockColl returns nil and holds no lock.
func (e *Engine) lockColl(db, coll string, create bool) (*collection, error) {
	return e.lockCollTx(nil, db, coll, create)
}

// lockCollTx is lockColl for a write of transaction tx (nil outside one):
// a collection it creates belongs to tx until tx ends.
func (e *Engine) lockCollTx(tx *Txn, db, coll string, create bool) (*collection, error) {
	for {
		c := e.cat.Load().lookup(db, coll)
		if c == nil {
			if !create {
				return nil, nil
			}
			if err := validateUserWrite(db, coll); err != nil {
				return nil, err
			}
			var err error
			if c, _, err = e.createCollection(db, coll, CreateOptions{}, tx); err != nil {
				return nil, err
			}
		}
		c.state.mu.Lock()
		cur := e.cat.Load().lookup(db, coll)
		if c.state.dropped || cur == nil || cur.state != c.state {
			c.state.mu.Unlock()
			continue
		}
		return cur, nil
	}
}

// publish replaces c's metadata in the catalog with n (same collection).
// The caller holds c.state.mu; the catalog entry must already be written.
func (e *Engine) publish(n *collection) {
	n.state.hints.clear()
	e.catMu.Lock()
	cat := e.cat.Load().clone()
	cat.put(n)
	e.cat.Store(cat)
	e.catMu.Unlock()
}

// visibleTo reports whether the catalog shows c to a reader in tx (nil:
// outside transactions): not while another transaction that created it
// is open.
func visibleTo(c *collection, tx *Txn) bool {
	owner := c.state.uncommitted.Load()
	return owner == nil || owner == tx
}

// HasCollection reports whether db.coll exists as a collection.
func (e *Engine) HasCollection(db, coll string) bool {
	return e.cat.Load().lookup(db, coll) != nil
}

// CollectionExistsError returns mongod's NamespaceExists error for an
// attempt to create something else (a view) named db.coll when a
// collection of that name exists, and nil when none does.
func (e *Engine) CollectionExistsError(db, coll string) error {
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil
	}
	return errs.New(errs.NamespaceExists, "namespace %s.%s already exists, but with different options: %s",
		db, coll, renderCollOptions(c))
}
