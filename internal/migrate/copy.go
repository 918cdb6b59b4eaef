package migrate

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// collInfo is one source namespace as listCollections describes it,
// with its target name.
type collInfo struct {
	DB, Coll   string
	TDB, TColl string
	Type       string // collection, view, timeseries
	Options    bson.Raw
	Count      int64 // estimated, for the progress display
}

func (c *collInfo) ns() string  { return c.DB + "." + c.Coll }
func (c *collInfo) tns() string { return c.TDB + "." + c.TColl }

// listNamespaces lists the source's included namespaces: collections
// first (largest first), then views in listCollections order.
func (m *Migration) listNamespaces(ctx context.Context) ([]*collInfo, error) {
	dbs, err := m.src.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		return nil, err
	}
	sort.Strings(dbs)
	var colls, views []*collInfo
	for _, db := range dbs {
		if !m.cfg.NS.DBIncluded(db) {
			continue
		}
		cur, err := m.src.Database(db).ListCollections(ctx, bson.D{})
		if err != nil {
			return nil, err
		}
		var specs []bson.Raw
		if err := cur.All(ctx, &specs); err != nil {
			return nil, err
		}
		for _, s := range specs {
			name, _ := s.Lookup("name").StringValueOK()
			if !m.cfg.NS.Included(db, name) {
				continue
			}
			ci := &collInfo{DB: db, Coll: name, Type: "collection"}
			if t, ok := s.Lookup("type").StringValueOK(); ok {
				ci.Type = t
			}
			if o, ok := s.Lookup("options").DocumentOK(); ok {
				ci.Options = bson.Raw(o)
			}
			ci.TDB, ci.TColl = m.cfg.NS.Target(db, name)
			if ci.Type == "view" {
				views = append(views, ci)
				continue
			}
			n, err := m.src.Database(db).Collection(name).EstimatedDocumentCount(ctx)
			if err == nil {
				ci.Count = n
			}
			colls = append(colls, ci)
		}
	}
	sort.SliceStable(colls, func(i, j int) bool { return colls[i].Count > colls[j].Count })
	return append(colls, views...), nil
}

// createOptions is the create command for ci on the target: its
// listCollections options, a view's viewOn renamed with it.
func (m *Migration) createCommand(ci *collInfo) bson.D {
	cmd := bson.D{{Key: "create", Value: ci.TColl}}
	els, _ := ci.Options.Elements()
	for _, el := range els {
		k := el.Key()
		if k == "viewOn" {
			if on, ok := el.Value().StringValueOK(); ok {
				_, tcoll := m.cfg.NS.Target(ci.DB, on)
				cmd = append(cmd, bson.E{Key: k, Value: tcoll})
				continue
			}
		}
		cmd = append(cmd, bson.E{Key: k, Value: el.Value()})
	}
	return cmd
}

// checkTarget, at a fresh start, refuses target namespaces that already
// hold documents (or drops them with --drop).
func (m *Migration) checkTarget(ctx context.Context) error {
	var colls []*collInfo
	if err := m.retry(ctx, "list the source's collections", func() error {
		var err error
		colls, err = m.listNamespaces(ctx)
		return err
	}); err != nil {
		return err
	}
	var busy []string
	for _, ci := range colls {
		exists, err := m.targetExists(ctx, ci)
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		if !exists {
			continue
		}
		if ci.Type != "view" && !m.cfg.Drop {
			// An empty collection made ready on the target (sharded,
			// or created with other options) is kept and filled.
			n, err := m.dst.Database(ci.TDB).Collection(ci.TColl).EstimatedDocumentCount(ctx)
			if err != nil {
				return fmt.Errorf("target: %w", err)
			}
			if n == 0 {
				m.out.printf("%s exists on the target, empty: kept with its options and filled", ci.tns())
				continue
			}
		}
		if m.cfg.Drop {
			if err := m.dst.Database(ci.TDB).Collection(ci.TColl).Drop(ctx); err != nil {
				return fmt.Errorf("target: drop %s: %w", ci.tns(), err)
			}
			m.out.printf("dropped %s on the target (--drop)", ci.tns())
			continue
		}
		busy = append(busy, ci.tns())
	}
	if len(busy) > 0 {
		return fmt.Errorf("the target already has documents or views in %d of the namespaces to copy (%v); drop them or run with --drop", len(busy), busy)
	}
	return nil
}

func (m *Migration) targetExists(ctx context.Context, ci *collInfo) (bool, error) {
	names, err := m.dst.Database(ci.TDB).ListCollectionNames(ctx, bson.D{{Key: "name", Value: ci.TColl}})
	return len(names) > 0, err
}

// copyAll copies every included namespace not yet copied: collections
// two at a time, each with its documents written by Workers writers,
// then its indexes; then the views. Each copied namespace is saved in
// the checkpoint; a namespace whose copy failed for a transient reason
// is dropped on the target and copied again.
func (m *Migration) copyAll(ctx context.Context, cp *checkpoint) error {
	var colls []*collInfo
	if err := m.retry(ctx, "list the source's collections", func() error {
		var err error
		colls, err = m.listNamespaces(ctx)
		return err
	}); err != nil || ctx.Err() != nil {
		return err
	}
	done := map[string]bool{}
	for _, ns := range cp.Copied {
		done[ns] = true
	}
	var todo, views []*collInfo
	var total int64
	for _, ci := range colls {
		if done[ci.ns()] {
			continue
		}
		if ci.Type == "view" {
			views = append(views, ci)
			continue
		}
		todo = append(todo, ci)
		total += ci.Count
	}
	prog := &progress{total: total, colls: len(todo), start: time.Now()}
	stopProg := m.showProgress(prog)
	defer stopProg()

	var mu sync.Mutex // cp, refused, firstErr
	var firstErr error
	var refused []string
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, ci := range todo {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := m.retry(ctx, "copy "+ci.ns(), func() error { return m.copyColl(ctx, ci, prog) })
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				// Reported now; the other collections go on, and the
				// move stops before the catch-up.
				m.out.printf("ERROR: %v", err)
				refused = append(refused, ci.ns())
				return
			}
			if ctx.Err() != nil {
				return
			}
			prog.collsDone.Add(1)
			cp.Copied = append(cp.Copied, ci.ns())
			cp.PendingIndexes = m.pendingIndexList()
			if err := m.retry(ctx, "save the checkpoint", func() error { return m.saveCheckpoint(ctx, cp) }); err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	if firstErr != nil || ctx.Err() != nil {
		return firstErr
	}
	for _, ci := range views {
		err := m.retry(ctx, "create view "+ci.tns(), func() error {
			err := m.createOnTarget(ctx, ci)
			if codeOf(err) == 48 { // NamespaceExists: created before a restart
				return nil
			}
			return err
		})
		if err != nil {
			m.out.printf("ERROR: %v", err)
			refused = append(refused, ci.ns())
			continue
		}
		cp.Copied = append(cp.Copied, ci.ns())
	}
	if len(views) > 0 {
		if err := m.retry(ctx, "save the checkpoint", func() error { return m.saveCheckpoint(ctx, cp) }); err != nil {
			return err
		}
	}
	stopProg()
	if len(refused) > 0 {
		return fmt.Errorf("%d namespace(s) could not be copied (%v), reported above; the others are copied and kept: exclude these with --ns-exclude, or change the target, and run the same command again", len(refused), refused)
	}
	el := time.Since(prog.start).Seconds()
	m.out.printf("copied %d documents of %d collection(s) and %d view(s) in %.1fs (%.0f docs/s)",
		prog.docs.Load(), len(todo), len(views), el, float64(prog.docs.Load())/max(el, 1e-9))
	return nil
}

func (m *Migration) createOnTarget(ctx context.Context, ci *collInfo) error {
	_, err := m.targetCommand(ctx, ci.TDB, m.createCommand(ci))
	if err != nil && codeOf(err) != 48 && !transient(err) {
		return fmt.Errorf("the target refused to create %s %s with options %s: %w", ci.Type, ci.tns(), ci.Options, err)
	}
	return err
}

// copyColl copies one collection: (re)creates it on the target, copies
// its documents, builds its indexes.
func (m *Migration) copyColl(ctx context.Context, ci *collInfo, prog *progress) error {
	tcoll := m.dst.Database(ci.TDB).Collection(ci.TColl)
	exists, err := m.targetExists(ctx, ci)
	if err != nil {
		return err
	}
	if exists {
		// The remains of an interrupted copy, or a collection prepared
		// on the target (sharded): emptied, not dropped, so that it
		// keeps what was prepared.
		if _, err := tcoll.DeleteMany(ctx, bson.D{}); err != nil {
			return err
		}
	} else if err := m.createOnTarget(ctx, ci); err != nil {
		return err
	}
	var copied atomic.Int64
	defer func() { prog.docs.Add(-copied.Load()) }() // counted again on a retry; kept when done
	if err := m.copyDocs(ctx, ci, tcoll, prog, &copied); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := m.copyIndexes(ctx, ci); err != nil {
		return err
	}
	if err := m.syncSource(ctx); err != nil { // what was read stays on the source
		return err
	}
	copied.Store(0)
	return nil
}

func (m *Migration) copyDocs(ctx context.Context, ci *collInfo, tcoll *mongo.Collection, prog *progress, copied *atomic.Int64) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := m.cfg.Workers
	if capped, _ := ci.Options.Lookup("capped").BooleanOK(); capped {
		workers = 1 // a capped collection keeps insertion order, and max evicts the oldest
	}
	batches := make(chan []bson.Raw, workers)
	errc := make(chan error, workers+1)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				_, err := tcoll.InsertMany(ctx, b, options.InsertMany().SetOrdered(false))
				if err != nil && !onlyDuplicates(err) {
					errc <- fmt.Errorf("insert into %s: %w", ci.tns(), err)
					cancel()
					for range batches {
					}
					return
				}
				copied.Add(int64(len(b)))
				prog.docs.Add(int64(len(b)))
			}
		}()
	}
	readErr := func() error {
		defer close(batches)
		cur, err := m.src.Database(ci.DB).Collection(ci.Coll).Find(ctx, bson.D{}, options.Find().SetBatchSize(int32(m.cfg.BatchDocs)))
		if err != nil {
			return fmt.Errorf("read %s: %w", ci.ns(), err)
		}
		defer cur.Close(context.Background())
		batch := make([]bson.Raw, 0, m.cfg.BatchDocs)
		size := 0
		for cur.Next(ctx) {
			d := make(bson.Raw, len(cur.Current))
			copy(d, cur.Current)
			batch = append(batch, d)
			size += len(d)
			if len(batch) >= m.cfg.BatchDocs || size >= m.cfg.BatchBytes {
				select {
				case batches <- batch:
				case <-ctx.Done():
					return nil
				}
				batch = make([]bson.Raw, 0, m.cfg.BatchDocs)
				size = 0
			}
		}
		if err := cur.Err(); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("read %s: %w", ci.ns(), err)
		}
		if len(batch) > 0 {
			select {
			case batches <- batch:
			case <-ctx.Done():
			}
		}
		return nil
	}()
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	select {
	case err := <-errc:
		return err
	default:
	}
	return nil
}

// onlyDuplicates reports a bulk insert whose every error is a duplicate
// key: the document is there already (the copy of a collection read
// while it changes may meet a document twice); the change stream sets
// its final version.
func onlyDuplicates(err error) bool {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
		return false
	}
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 {
			return false
		}
	}
	return true
}

// copyIndexes builds ci's indexes on the target, as listIndexes gives
// them (but the version and namespace fields).
func (m *Migration) copyIndexes(ctx context.Context, ci *collInfo) error {
	specs, err := indexSpecs(ctx, m.src, ci.DB, ci.Coll)
	if err != nil {
		return fmt.Errorf("list the indexes of %s: %w", ci.ns(), err)
	}
	if len(specs) == 0 {
		return nil
	}
	arr := bson.A{}
	for _, s := range specs {
		arr = append(arr, s)
	}
	_, err = m.targetCommand(ctx, ci.TDB, bson.D{{Key: "createIndexes", Value: ci.TColl}, {Key: "indexes", Value: arr}})
	if err == nil || transient(err) {
		return err
	}
	if codeOf(err) != 11000 {
		return fmt.Errorf("the target refused the indexes of %s: %w", ci.tns(), err)
	}
	// A unique index meets two documents with one key: the copy read
	// them at different moments. Built one by one; the refused ones are
	// built again once the catch-up has applied the changes between.
	for _, spec := range specs {
		_, err := m.targetCommand(ctx, ci.TDB, bson.D{{Key: "createIndexes", Value: ci.TColl}, {Key: "indexes", Value: bson.A{spec}}})
		switch {
		case err == nil:
		case codeOf(err) == 11000:
			raw, _ := bson.Marshal(spec)
			m.mu.Lock()
			m.pendingIdx = append(m.pendingIdx, pendingIndex{DB: ci.DB, Coll: ci.Coll, Spec: raw})
			m.mu.Unlock()
			m.out.printf("index %s of %s: %v; built again during the catch-up", specName(spec), ci.tns(), err)
		case transient(err):
			return err
		default:
			return fmt.Errorf("the target refused index %s of %s: %w", specName(spec), ci.tns(), err)
		}
	}
	return nil
}

// pendingIndex is an index to build again on the target.
type pendingIndex struct {
	DB   string   `bson:"db"`
	Coll string   `bson:"coll"`
	Spec bson.Raw `bson:"spec"`
}

func (m *Migration) pendingIndexList() []pendingIndex {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]pendingIndex(nil), m.pendingIdx...)
}

// buildPendingIndexes tries the indexes not built yet again.
func (m *Migration) buildPendingIndexes(ctx context.Context) error {
	var left []pendingIndex
	for _, p := range m.pendingIndexList() {
		tdb, tcoll := m.cfg.NS.Target(p.DB, p.Coll)
		_, err := m.targetCommand(ctx, tdb, bson.D{{Key: "createIndexes", Value: tcoll}, {Key: "indexes", Value: bson.A{p.Spec}}})
		switch {
		case err == nil:
			m.out.printf("index %s of %s.%s built", p.Spec.Lookup("name"), tdb, tcoll)
		case codeOf(err) == 11000:
			left = append(left, p)
		case codeOf(err) == 26: // dropped since
		default:
			return err
		}
	}
	m.mu.Lock()
	m.pendingIdx = left
	m.mu.Unlock()
	return nil
}

// indexSpecs lists a collection's index specifications but _id's,
// without v and ns.
func indexSpecs(ctx context.Context, c *mongo.Client, db, coll string) ([]bson.D, error) {
	cur, err := c.Database(db).Collection(coll).Indexes().List(ctx)
	if err != nil {
		if codeOf(err) == 26 {
			return nil, nil
		}
		return nil, err
	}
	var raws []bson.Raw
	if err := cur.All(ctx, &raws); err != nil {
		return nil, err
	}
	var out []bson.D
	for _, r := range raws {
		if name, _ := r.Lookup("name").StringValueOK(); name == "_id_" {
			continue
		}
		out = append(out, cleanSpec(r))
	}
	sort.Slice(out, func(i, j int) bool { return specName(out[i]) < specName(out[j]) })
	return out, nil
}

func cleanSpec(r bson.Raw) bson.D {
	var d bson.D
	els, _ := r.Elements()
	for _, el := range els {
		switch el.Key() {
		case "v", "ns", "background":
			continue
		}
		d = append(d, bson.E{Key: el.Key(), Value: el.Value()})
	}
	return d
}

func specName(d bson.D) string {
	for _, e := range d {
		if e.Key == "name" {
			s, _ := e.Value.(bson.RawValue).StringValueOK()
			return s
		}
	}
	return ""
}

// progress counts the copy.
type progress struct {
	total     int64
	colls     int
	start     time.Time
	docs      atomic.Int64
	collsDone atomic.Int64
}

// showProgress prints the copy's progress every Progress until the
// returned function is called.
func (m *Migration) showProgress(p *progress) func() {
	stop := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(m.cfg.Progress)
		defer t.Stop()
		last, lastT := int64(0), time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				n := p.docs.Load()
				rate := max(0, float64(n-last)/now.Sub(lastT).Seconds()) // a retried collection counts again
				last, lastT = n, now
				pct := 100.0
				if p.total > 0 {
					pct = min(100, 100*float64(n)/float64(p.total))
				}
				m.out.printf("copy: %d/%d documents (%.0f%%), %.0f docs/s, %d/%d collections done",
					n, p.total, pct, rate, p.collsDone.Load(), p.colls)
			}
		}
	}()
	return func() { once.Do(func() { close(stop) }) }
}
