package migrate

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// event is a change stream event, the fields the catch-up reads.
type event struct {
	ID            bson.Raw       `bson:"_id"`
	OperationType string         `bson:"operationType"`
	ClusterTime   bson.Timestamp `bson:"clusterTime"`
	NS            struct {
		DB   string `bson:"db"`
		Coll string `bson:"coll"`
	} `bson:"ns"`
	To struct {
		DB   string `bson:"db"`
		Coll string `bson:"coll"`
	} `bson:"to"`
	DocumentKey          bson.Raw `bson:"documentKey"`
	FullDocument         bson.Raw `bson:"fullDocument"`
	OperationDescription bson.Raw `bson:"operationDescription"`
}

// maxBatchEvents bounds the events applied between two checkpoints.
const maxBatchEvents = 2000

// catchUp applies the source's changes from cp.Token until ctx ends,
// or, with Cutover, until the source refuses writes and every change
// is applied.
func (m *Migration) catchUp(ctx context.Context, cp *checkpoint) error {
	st := &catchState{start: time.Now()}
	for _, p := range cp.Pending {
		m.addPending(p)
	}
	m.mu.Lock()
	m.pendingIdx = append([]pendingIndex(nil), cp.PendingIndexes...)
	m.mu.Unlock()
	unresolved := 0
	cutStart := time.Now()
	blocked := false
	lastPrint := time.Now()
	for ctx.Err() == nil {
		err := m.follow(ctx, cp, st, func(near, empty bool) (bool, error) {
			if time.Since(lastPrint) >= m.cfg.Progress {
				lastPrint = time.Now()
				m.printLag(ctx, cp, st)
			}
			if near && len(m.pendingIndexList()) > 0 {
				if err := m.buildPendingIndexes(ctx); err != nil {
					return false, err
				}
				cp.PendingIndexes = m.pendingIndexList()
			}
			if !m.cfg.Cutover || !near {
				return false, nil
			}
			if !blocked {
				// Block once within a second of the source; a load that
				// keeps the catch-up further behind is let in later,
				// one more second of lag for every 30 s of waiting
				// (the writes then fail for about the lag).
				allowed := 1 + int64(time.Since(cutStart)/(30*time.Second))
				if !empty && m.lagSeconds(ctx, cp) > allowed {
					return false, nil
				}
				// Once the source refuses writes (and its writes in
				// flight ended), the next empty batch means every
				// change is applied.
				if err := m.blockWrites(ctx); err != nil {
					return false, err
				}
				blocked = true
				return false, nil
			}
			if !empty {
				return false, nil
			}
			// Every change is applied; what a unique index refused must
			// be in place too.
			if n, ni := len(m.pendingList()), len(m.pendingIndexList()); n+ni > 0 {
				if unresolved++; unresolved > 20 {
					return false, fmt.Errorf("cutover: the target still refuses %d document(s) and %d index(es) (duplicate keys): %v %v", n, ni, m.pendingList(), m.pendingIndexList())
				}
				return false, nil
			}
			return true, nil
		})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			break
		}
		if !transient(err) {
			return err
		}
		m.out.printf("catch-up: %v; resuming from the checkpoint in %v", err, st.backoff())
		select {
		case <-ctx.Done():
		case <-time.After(st.backoff()):
		}
		st.failures++
	}
	if ctx.Err() != nil {
		m.out.printf("stopped; %d change(s) applied; run the same command to resume from %s", st.applied, tokenString(cp.Token))
		return nil
	}
	m.printLag(ctx, cp, st)
	return m.cutover(ctx, cp)
}

type catchState struct {
	start       time.Time
	applied     int64
	failures    int
	lastApplied int64
	lastT       time.Time
	idle        bool // the last batch was empty: caught up
}

func (s *catchState) backoff() time.Duration {
	d := 200 * time.Millisecond << min(s.failures, 5)
	return min(d, 5*time.Second)
}

// follow opens the change stream at cp.Token and applies its changes in
// batches, saving the checkpoint after each, until ctx ends, an error,
// or done says so (called after each batch; near: the batch took all
// the source had then; empty: the source had no change to give).
func (m *Migration) follow(ctx context.Context, cp *checkpoint, st *catchState, done func(near, empty bool) (bool, error)) error {
	opts := options.ChangeStream().SetShowExpandedEvents(true).
		SetFullDocument(options.UpdateLookup).
		SetMaxAwaitTime(500 * time.Millisecond).
		SetBatchSize(maxBatchEvents)
	if len(cp.Token) > 0 {
		opts.SetResumeAfter(cp.Token)
	}
	id0, err := m.sourceIdentity(ctx)
	if err != nil {
		return err
	}
	cs, err := m.src.Watch(ctx, mongo.Pipeline{}, opts)
	if err != nil {
		if codeOf(err) == 286 { // ChangeStreamHistoryLost
			return fmt.Errorf("the source's oplog no longer holds the checkpoint %s: start again (drop %s on the target and the copied collections): %w", tokenString(cp.Token), CheckpointDB, err)
		}
		return err
	}
	defer cs.Close(context.Background())
	st.failures = 0
	var batch []event
	for {
		batch = batch[:0]
		empty, near := false, false
		for len(batch) < maxBatchEvents {
			if !cs.TryNext(ctx) {
				empty = true
				break
			}
			var ev event
			if err := cs.Decode(&ev); err != nil {
				return fmt.Errorf("decode a change: %w", err)
			}
			batch = append(batch, ev)
			if cs.RemainingBatchLength() == 0 && len(batch) > 0 {
				near = len(batch) < maxBatchEvents
				break
			}
		}
		if err := cs.Err(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		st.idle = len(batch) == 0
		if len(batch) > 0 {
			if err := m.syncSource(ctx); err != nil {
				return err
			}
			// The batch came from the process the stream was opened on
			// and the sync reached it too: else the source restarted,
			// the driver resumed on its own from a position the
			// source may have lost, and the stream starts again from
			// the checkpoint.
			if id, err := m.sourceIdentity(ctx); err != nil {
				return err
			} else if !id.same(id0) {
				return errSourceRestarted
			}
			if err := m.apply(ctx, batch); err != nil {
				return err
			}
			st.applied += int64(len(batch))
		}
		if err := m.resolvePending(ctx); err != nil {
			return err
		}
		cp.Pending = m.pendingList()
		// The checkpoint moves with applied changes only: a position
		// past them (an idle stream's high-water mark) is not known to
		// be durable on the source.
		tok := cs.ResumeToken()
		if len(batch) > 0 && tok != nil && !bytesEqual(tok, cp.Token) {
			cp.Token = append(bson.Raw{}, tok...)
			cp.Applied = st.applied
			if err := m.saveCheckpoint(ctx, cp); err != nil {
				return err
			}
		}
		if len(batch) > 0 {
			empty = false
		}
		if stop, err := done(near || empty, empty); err != nil || stop {
			return err
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// lagSeconds is how far the applied point is behind the source's
// latest cluster time, in seconds (a large number when unknown).
func (m *Migration) lagSeconds(ctx context.Context, cp *checkpoint) int64 {
	now, err := m.sourceTime(ctx)
	ts, ok := tokenTime(cp.Token)
	if err != nil || !ok {
		return 1 << 30
	}
	return max(int64(now.T)-int64(ts.T), 0)
}

// printLag prints the changes applied and how far behind the source the
// applied point is.
func (m *Migration) printLag(ctx context.Context, cp *checkpoint, st *catchState) {
	lag := "?"
	if st.idle {
		lag = "0s, caught up"
	} else if now, err := m.sourceTime(ctx); err == nil {
		if ts, ok := tokenTime(cp.Token); ok {
			d := int64(now.T) - int64(ts.T)
			lag = fmt.Sprintf("%ds", max(d, 0))
		}
	}
	rate := 0.0
	if !st.lastT.IsZero() {
		rate = float64(st.applied-st.lastApplied) / time.Since(st.lastT).Seconds()
	}
	st.lastApplied, st.lastT = st.applied, time.Now()
	m.out.printf("catch-up: %d change(s) applied (%.0f/s), lag %s, at %s", st.applied, rate, lag, tokenString(cp.Token))
}

// apply applies a batch of changes in order: consecutive document
// changes are grouped per target collection into ordered bulk writes
// (run in parallel, one collection's in order); a DDL change waits for
// the writes before it.
func (m *Migration) apply(ctx context.Context, batch []event) error {
	pending := map[target]*group{}
	var order []target
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		var wg sync.WaitGroup
		errs := make([]error, len(order))
		for i, ns := range order {
			g := pending[ns]
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = m.bulk(ctx, ns, g)
			}()
		}
		wg.Wait()
		pending = map[target]*group{}
		order = order[:0]
		return errors.Join(errs...)
	}
	for i := range batch {
		ev := &batch[i]
		switch ev.OperationType {
		case "insert", "replace", "update", "delete":
			if !m.cfg.NS.Included(ev.NS.DB, ev.NS.Coll) {
				continue
			}
			tdb, tcoll := m.cfg.NS.Target(ev.NS.DB, ev.NS.Coll)
			key := target{tdb, tcoll, 0}
			if !m.isCapped(ctx, ev.NS.DB, ev.NS.Coll) {
				key.part = partOf(ev.DocumentKey) // a capped collection's changes stay in one line
			}
			var wm mongo.WriteModel
			switch {
			case ev.OperationType == "delete" || len(ev.FullDocument) == 0:
				// An update whose document is gone by the lookup: its
				// delete follows.
				wm = mongo.NewDeleteOneModel().SetFilter(ev.DocumentKey)
			default:
				wm = mongo.NewReplaceOneModel().SetFilter(ev.DocumentKey).SetReplacement(ev.FullDocument).SetUpsert(true)
			}
			g, ok := pending[key]
			if !ok {
				g = &group{db: ev.NS.DB, coll: ev.NS.Coll}
				pending[key] = g
				order = append(order, key)
			}
			g.models = append(g.models, wm)
			g.keys = append(g.keys, ev.DocumentKey)
		default:
			if err := flush(); err != nil {
				return err
			}
			if err := m.applyDDL(ctx, ev); err != nil {
				return err
			}
		}
	}
	return flush()
}

// target is where a group of document changes goes: a target
// collection and a partition of its documents (by a hash of the
// document key), so that one collection's changes are applied by
// several writers while each document's stay in order.
type target struct {
	db, coll string
	part     uint32
}

// applyParts is the number of partitions of a collection's changes.
const applyParts = 4

func partOf(key bson.Raw) uint32 {
	h := fnv.New32a()
	h.Write(key)
	return h.Sum32() % applyParts
}

// group is the document changes of one target partition, in order, with
// their document keys and source namespace.
type group struct {
	db, coll string
	models   []mongo.WriteModel
	keys     []bson.Raw
}

func (m *Migration) bulk(ctx context.Context, t target, g *group) error {
	coll := m.dst.Database(t.db).Collection(t.coll)
	_, err := coll.BulkWrite(ctx, g.models, options.BulkWrite().SetOrdered(true))
	if err == nil {
		return nil
	}
	if !onlyDuplicates(err) {
		return fmt.Errorf("apply %d change(s) to %s.%s: %w", len(g.models), t.db, t.coll, err)
	}
	// A unique index refused a version of a document that a later
	// change (of it or of the document holding the key) makes right:
	// the changes are applied one by one, and the documents refused
	// are set from the source's current version once the others are
	// applied (resolvePending).
	for i, wm := range g.models {
		_, err := coll.BulkWrite(ctx, []mongo.WriteModel{wm})
		switch {
		case err == nil:
		case onlyDuplicates(err):
			m.addPending(pendingDoc{DB: g.db, Coll: g.coll, Key: g.keys[i]})
		default:
			return fmt.Errorf("apply a change to %s.%s: %w", t.db, t.coll, err)
		}
	}
	return nil
}

// pendingDoc is a document a unique index refused on the target, to be
// set again from the source.
type pendingDoc struct {
	DB   string   `bson:"db"`
	Coll string   `bson:"coll"`
	Key  bson.Raw `bson:"key"`
}

func (p pendingDoc) id() string { return p.DB + "\x00" + p.Coll + "\x00" + string(p.Key) }

func (m *Migration) addPending(p pendingDoc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pending == nil {
		m.pending = map[string]pendingDoc{}
	}
	m.pending[p.id()] = p
}

// pendingList is the refused documents, for the checkpoint.
func (m *Migration) pendingList() []pendingDoc {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]pendingDoc, 0, len(m.pending))
	for _, p := range m.pending {
		out = append(out, p)
	}
	return out
}

// resolvePending sets each refused document to the source's current
// version (or deletes it), and keeps those the target still refuses.
func (m *Migration) resolvePending(ctx context.Context) error {
	for _, p := range m.pendingList() {
		tdb, tcoll := m.cfg.NS.Target(p.DB, p.Coll)
		tc := m.dst.Database(tdb).Collection(tcoll)
		doc, err := m.src.Database(p.DB).Collection(p.Coll).FindOne(ctx, p.Key).Raw()
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			_, err = tc.DeleteOne(ctx, p.Key)
		case err == nil:
			_, err = tc.ReplaceOne(ctx, p.Key, doc, options.Replace().SetUpsert(true))
		}
		if onlyDuplicates(err) || codeOf(err) == 11000 {
			continue
		}
		if err != nil {
			return err
		}
		m.mu.Lock()
		delete(m.pending, p.id())
		m.mu.Unlock()
	}
	return nil
}

// applyDDL applies a collection or index change. Each is idempotent: a
// change applied before a restart is applied again.
func (m *Migration) applyDDL(ctx context.Context, ev *event) error {
	db, coll := ev.NS.DB, ev.NS.Coll
	m.forgetCapped(db, coll)
	if ev.To.Coll != "" {
		m.forgetCapped(ev.To.DB, ev.To.Coll)
	}
	tdb, tcoll := m.cfg.NS.Target(db, coll)
	run := func(what string, cmd bson.D, ok ...int) error {
		_, err := m.targetCommand(ctx, tdb, cmd)
		if err == nil {
			return nil
		}
		for _, c := range ok {
			if codeOf(err) == c {
				return nil
			}
		}
		if transient(err) {
			return err
		}
		return fmt.Errorf("apply %s of %s.%s on the target: %w", what, tdb, tcoll, err)
	}
	switch ev.OperationType {
	case "dropDatabase":
		if !m.cfg.NS.DBIncluded(db) {
			return nil
		}
		// Only the included collections: a filter may keep others.
		names, err := m.dst.Database(tdb).ListCollectionNames(ctx, bson.D{})
		if err != nil {
			return err
		}
		for _, n := range names {
			if !skipColl(n) {
				if err := run("drop", bson.D{{Key: "drop", Value: n}}, 26); err != nil {
					return err
				}
			}
		}
		return nil
	case "invalidate":
		return nil
	}
	if !m.cfg.NS.Included(db, coll) {
		if ev.OperationType == "rename" && m.cfg.NS.Included(ev.To.DB, ev.To.Coll) {
			// Renamed into the included namespaces: copy it as it is now.
			return m.copyRenamed(ctx, ev.To.DB, ev.To.Coll)
		}
		return nil
	}
	switch ev.OperationType {
	case "create":
		cmd := bson.D{{Key: "create", Value: tcoll}}
		els, _ := ev.OperationDescription.Elements()
		for _, el := range els {
			if el.Key() == "idIndex" {
				continue
			}
			if el.Key() == "viewOn" {
				on, _ := el.Value().StringValueOK()
				_, ton := m.cfg.NS.Target(db, on)
				cmd = append(cmd, bson.E{Key: "viewOn", Value: ton})
				continue
			}
			cmd = append(cmd, bson.E{Key: el.Key(), Value: el.Value()})
		}
		return run("create", cmd, 48)
	case "drop":
		return run("drop", bson.D{{Key: "drop", Value: tcoll}}, 26)
	case "rename":
		if !m.cfg.NS.Included(ev.To.DB, ev.To.Coll) {
			return run("drop", bson.D{{Key: "drop", Value: tcoll}}, 26)
		}
		tdb2, tcoll2 := m.cfg.NS.Target(ev.To.DB, ev.To.Coll)
		_, err := m.targetCommand(ctx, "admin", bson.D{
			{Key: "renameCollection", Value: tdb + "." + tcoll},
			{Key: "to", Value: tdb2 + "." + tcoll2},
			{Key: "dropTarget", Value: true},
		})
		if err != nil && codeOf(err) != 26 && !transient(err) {
			return fmt.Errorf("apply rename of %s.%s to %s.%s on the target: %w", tdb, tcoll, tdb2, tcoll2, err)
		}
		if codeOf(err) == 26 {
			return nil // renamed before a restart
		}
		return err
	case "createIndexes":
		idx, _ := ev.OperationDescription.Lookup("indexes").ArrayOK()
		vals, _ := idx.Values()
		arr := bson.A{}
		for _, v := range vals {
			if d, ok := v.DocumentOK(); ok {
				arr = append(arr, cleanSpec(bson.Raw(d)))
			}
		}
		return run("createIndexes", bson.D{{Key: "createIndexes", Value: tcoll}, {Key: "indexes", Value: arr}}, 85, 86)
	case "dropIndexes":
		idx, _ := ev.OperationDescription.Lookup("indexes").ArrayOK()
		vals, _ := idx.Values()
		for _, v := range vals {
			d, _ := v.DocumentOK()
			name, _ := d.Lookup("name").StringValueOK()
			if err := run("dropIndexes", bson.D{{Key: "dropIndexes", Value: tcoll}, {Key: "index", Value: name}}, 27, 26); err != nil {
				return err
			}
		}
		return nil
	case "modify":
		cmd := bson.D{{Key: "collMod", Value: tcoll}}
		els, _ := ev.OperationDescription.Elements()
		for _, el := range els {
			cmd = append(cmd, bson.E{Key: el.Key(), Value: el.Value()})
		}
		return run("collMod", cmd, 26)
	case "shardCollection", "reshardCollection", "refineCollectionShardKey":
		return nil
	}
	m.out.printf("catch-up: skipped a %s change on %s.%s (not applied by lode migrate)", ev.OperationType, db, coll)
	return nil
}

// copyRenamed copies a collection renamed from an excluded namespace
// into an included one, as the source holds it now.
func (m *Migration) copyRenamed(ctx context.Context, db, coll string) error {
	cur, err := m.src.Database(db).ListCollections(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return err
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		return err
	}
	if len(specs) == 0 {
		return nil // gone since
	}
	ci := &collInfo{DB: db, Coll: coll, Type: "collection"}
	if t, ok := specs[0].Lookup("type").StringValueOK(); ok {
		ci.Type = t
	}
	if o, ok := specs[0].Lookup("options").DocumentOK(); ok {
		ci.Options = bson.Raw(o)
	}
	ci.TDB, ci.TColl = m.cfg.NS.Target(db, coll)
	if ci.Type == "view" {
		return m.createOnTarget(ctx, ci)
	}
	return m.copyColl(ctx, ci, &progress{})
}

// isCapped reports whether source collection db.coll is capped (asked
// of the source once, then cached until a DDL change of it).
func (m *Migration) isCapped(ctx context.Context, db, coll string) bool {
	ns := db + "." + coll
	m.mu.Lock()
	c, ok := m.capped[ns]
	m.mu.Unlock()
	if ok {
		return c
	}
	cur, err := m.src.Database(db).ListCollections(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return false
	}
	var specs []bson.Raw
	if cur.All(ctx, &specs) != nil {
		return false
	}
	if len(specs) > 0 {
		c, _ = specs[0].Lookup("options", "capped").BooleanOK()
	}
	m.mu.Lock()
	if m.capped == nil {
		m.capped = map[string]bool{}
	}
	m.capped[ns] = c
	m.mu.Unlock()
	return c
}

func (m *Migration) forgetCapped(db, coll string) {
	m.mu.Lock()
	delete(m.capped, db+"."+coll)
	m.mu.Unlock()
}
