package engine

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

// Views, as mongod 7.0 has them, are documents
// {_id: "<db>.<view>", viewOn, pipeline, collation} of the ordinary
// collection <db>.system.views: durable, logged in the oplog and dropped
// with their database. The catalog holds each database's definitions
// parsed (catalog.views), so that a read of a name needs no query of
// system.views.
//
// The parsed definitions of a database are tagged with the state of the
// system.views collection they were read from, and are current only while
// the catalog's system.views has that state:
//   - a commit that writes system.views, alone or in a transaction,
//     re-reads it before returning (refreshViews), so the writer and
//     every later reader see the new definitions;
//   - a drop of system.views or of its database, a rename to or from
//     system.views and the abort of the transaction that created it
//     change the catalog's system.views (gone, or another state), which
//     makes the parsed definitions stale: the next lookup reads them
//     again, as it does after a restart.

// SystemViews is the name of a database's view catalog collection.
const SystemViews = "system.views"

// View is a view definition: the name, the collection or view it is
// defined on, its pipeline and its default collation (the normalised spec
// document; nil for the simple one). A View is shared and must not be
// changed.
type View struct {
	Name, ViewOn string
	Pipeline     []bsoncore.Document
	Collation    bsoncore.Document
}

// dbViews is one database's parsed system.views.
type dbViews struct {
	src    *collState // the system.views collection read
	byName map[string]*View
}

// ParseView reads a system.views document of db; ok is false when it
// does not define a view (no "<db>." _id string, no viewOn). The View
// keeps references into d.
func ParseView(db string, d bsoncore.Document) (v *View, ok bool) {
	id, ok := d.Lookup("_id").StringValueOK()
	if !ok || !strings.HasPrefix(id, db+".") {
		return nil, false
	}
	v = &View{Name: id[len(db)+1:]}
	v.ViewOn, _ = d.Lookup("viewOn").StringValueOK()
	v.Collation, _ = d.Lookup("collation").DocumentOK()
	if arr, ok := d.Lookup("pipeline").ArrayOK(); ok {
		vals, _ := arr.Values()
		for _, x := range vals {
			if sd, ok := x.DocumentOK(); ok {
				v.Pipeline = append(v.Pipeline, sd)
			}
		}
	}
	return v, v.ViewOn != ""
}

// View returns the view db.name, or nil when db.name is not a view (a
// collection of that name hides a view document with its _id).
func (e *Engine) View(db, name string) (*View, error) {
	cat := e.cat.Load()
	if cat.lookup(db, name) != nil {
		return nil, nil
	}
	dv, err := e.viewsOf(cat, db)
	if dv == nil {
		return nil, err
	}
	return dv.byName[name], nil
}

// Views returns the views of db by name. The map is shared and must not
// be changed.
func (e *Engine) Views(db string) (map[string]*View, error) {
	dv, err := e.viewsOf(e.cat.Load(), db)
	if dv == nil {
		return nil, err
	}
	return dv.byName, nil
}

// viewsOf returns the parsed views of db in cat, reading system.views
// when cat holds none or stale ones; nil when db has no system.views.
func (e *Engine) viewsOf(cat *catalog, db string) (*dbViews, error) {
	sv := cat.lookup(db, SystemViews)
	if sv == nil {
		return nil, nil
	}
	if dv := cat.views[db]; dv != nil && dv.src == sv.state {
		return dv, nil
	}
	return e.refreshViews(db, false)
}

// refreshViews reads db.system.views as committed and publishes its
// parsed views in the catalog. Unless force, views already current are
// kept. Reads and publications are serialized by catMu, so each one
// reflects every commit that returned before it. On a read error the
// database's entry is removed: the next lookup tries again.
func (e *Engine) refreshViews(db string, force bool) (*dbViews, error) {
	e.catMu.Lock()
	defer e.catMu.Unlock()
	cat := e.cat.Load()
	sv := cat.lookup(db, SystemViews)
	old := cat.views[db]
	if sv != nil && old != nil && old.src == sv.state && !force {
		return old, nil
	}
	var dv *dbViews
	var err error
	if sv != nil {
		dv, err = e.readViews(sv)
	}
	if dv == nil && old == nil {
		return nil, err
	}
	n := cat.clone()
	views := make(map[string]*dbViews, len(cat.views)+1)
	for k, v := range cat.views {
		views[k] = v
	}
	if dv == nil {
		delete(views, db)
	} else {
		views[db] = dv
	}
	n.views = views
	e.cat.Store(n)
	return dv, err
}

// readViews parses the committed documents of c, a system.views
// collection.
func (e *Engine) readViews(c *collection) (*dbViews, error) {
	cur, err := storage.NewRecordCursor(e.db.Reader(), c.ID, false)
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	dv := &dbViews{src: c.state, byName: map[string]*View{}}
	for {
		_, doc, ok := cur.Next()
		if !ok {
			break
		}
		if v, ok := ParseView(c.DB, append(bsoncore.Document(nil), doc...)); ok {
			dv.byName[v.Name] = v
		}
	}
	if err := cur.Err(); err != nil {
		return nil, err
	}
	return dv, nil
}

// viewsWritten re-reads the views of db after a commit that wrote
// coll, when coll is system.views. A failed read leaves the views to be
// read again at their next lookup.
func (e *Engine) viewsWritten(db, coll string) {
	if coll == SystemViews {
		_, _ = e.refreshViews(db, true)
	}
}

// loadViews reads the views of every database at Open.
func (e *Engine) loadViews() error {
	for _, db := range e.cat.Load().sortedDBNames() {
		if _, err := e.viewsOf(e.cat.Load(), db); err != nil {
			return err
		}
	}
	return nil
}
