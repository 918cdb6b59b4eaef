package changestream

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/oplog"
)

// Scope is what a stream watches: one collection, one database, or the
// whole deployment.
type Scope struct {
	DB, Coll string // Coll "" watches a database; DB "" the deployment
}

// watches reports whether changes to db.coll belong to the stream.
// System collections and the admin, config and local databases are not
// reported, as in mongod.
func (s Scope) watches(db, coll string) bool {
	if s.DB == "" {
		if db == "admin" || db == "config" || db == "local" {
			return false
		}
	} else if db != s.DB {
		return false
	}
	if s.Coll != "" {
		return coll == s.Coll
	}
	return !strings.HasPrefix(coll, "system.")
}

// event is one change event before the stream's own stages, with its
// position.
type event struct {
	tok Token
	doc bsoncore.Document
	// lookup: fullDocument must be looked up (updateLookup) for db.coll
	// and documentKey when the event is delivered.
	lookup bool
	db     string
	coll   string
	key    bsoncore.Document
	// ends: the event is the invalidate that closes the stream.
	ends bool
	// kind is the operationType of a document change ("" otherwise).
	kind string
}

// entryInfo is what every event of one oplog entry shares.
type entryInfo struct {
	ts   oplog.TS
	wall bsoncore.Value
	lsid bsoncore.Value // zero when not in a transaction
	txn  bsoncore.Value
}

// transform appends the events of one oplog entry (or one operation of
// an applyOps) for the stream.
func (r *Reader) transform(out []event, e bsoncore.Document, info entryInfo, opIndex uint32) []event {
	op, _ := e.Lookup("op").StringValueOK()
	ns, _ := e.Lookup("ns").StringValueOK()
	db, coll, _ := strings.Cut(ns, ".")
	o, _ := e.Lookup("o").DocumentOK()
	tok := Token{TS: info.ts, Op: opIndex}
	switch op {
	case oplog.OpInsert, oplog.OpUpdate, oplog.OpDelete:
		if coll == "system.views" {
			return r.viewEvent(out, op, e, o, db, info, tok)
		}
		if !r.scope.watches(db, coll) {
			return out
		}
		return append(out, r.crudEvent(op, e, o, db, coll, info, tok))
	case oplog.OpCommand:
		if ops, ok := o.Lookup("applyOps").ArrayOK(); ok && coll == "$cmd" {
			vals, _ := ops.Values()
			txnInfo := info
			txnInfo.lsid, txnInfo.txn = e.Lookup("lsid"), e.Lookup("txnNumber")
			for i, v := range vals {
				if inner, ok := v.DocumentOK(); ok {
					out = r.transform(out, inner, txnInfo, uint32(i))
				}
			}
			return out
		}
		return r.commandEvents(out, e, o, db, info, tok)
	}
	return out
}

// header starts an event: _id, operationType, clusterTime, collectionUUID
// (expanded events), wallTime, and the transaction's txnNumber and lsid.
func (r *Reader) header(b *bsoncore.DocumentBuilder, tok Token, opType string, e bsoncore.Document, info entryInfo) {
	b.AppendDocument("_id", tok.Doc()).
		AppendString("operationType", opType).
		AppendTimestamp("clusterTime", info.ts.Sec(), info.ts.Inc())
	if r.spec.ShowExpandedEvents {
		if ui, err := e.LookupErr("ui"); err == nil {
			b.AppendValue("collectionUUID", ui)
		}
	}
	if info.wall.Type != 0 {
		b.AppendValue("wallTime", info.wall)
	}
	if info.txn.Type != 0 {
		b.AppendValue("txnNumber", info.txn)
		b.AppendValue("lsid", info.lsid)
	}
}

func nsDoc(db, coll string) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("db", db)
	if coll != "" {
		b.AppendString("coll", coll)
	}
	return b.Build()
}

// crudEvent is an insert, update, replace or delete event.
func (r *Reader) crudEvent(op string, e, o bsoncore.Document, db, coll string, info entryInfo, tok Token) event {
	ev := event{tok: tok, db: db, coll: coll}
	b := bsoncore.NewDocumentBuilder()
	switch op {
	case oplog.OpInsert:
		ev.key = idOf(o)
		r.header(b, tok, "insert", e, info)
		b.AppendDocument("fullDocument", o).
			AppendDocument("ns", nsDoc(db, coll)).
			AppendDocument("documentKey", ev.key)
	case oplog.OpDelete:
		// The event outlives the scan's callback: keep the key's bytes.
		ev.key = append(bsoncore.Document(nil), o...)
		r.header(b, tok, "delete", e, info)
		b.AppendDocument("ns", nsDoc(db, coll)).AppendDocument("documentKey", ev.key)
	case oplog.OpUpdate:
		key, _ := e.Lookup("o2").DocumentOK()
		ev.key = append(bsoncore.Document(nil), key...)
		if v, ok := o.Lookup("$v").AsInt64OK(); ok && v == 2 {
			diff, _ := o.Lookup("diff").DocumentOK()
			r.header(b, tok, "update", e, info)
			b.AppendDocument("ns", nsDoc(db, coll)).
				AppendDocument("documentKey", ev.key).
				AppendDocument("updateDescription", updateDescription(diff, r.spec.ShowExpandedEvents))
			ev.lookup = r.spec.FullDocument == "updateLookup"
		} else {
			r.header(b, tok, "replace", e, info)
			b.AppendDocument("fullDocument", o).
				AppendDocument("ns", nsDoc(db, coll)).
				AppendDocument("documentKey", ev.key)
		}
	}
	ev.doc = b.Build()
	ev.kind, _ = ev.doc.Lookup("operationType").StringValueOK()
	return ev
}

func idOf(d bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if v, err := d.LookupErr("_id"); err == nil {
		b.AppendValue("_id", v)
	}
	return b.Build()
}

// commandEvents turns a catalog command into drop, rename, dropDatabase
// and invalidate events, and with showExpandedEvents into create,
// createIndexes, dropIndexes and modify events.
func (r *Reader) commandEvents(out []event, e, o bsoncore.Document, db string, info entryInfo, tok Token) []event {
	first, err := o.IndexErr(0)
	if err != nil {
		return out
	}
	name := first.Key()
	arg, _ := first.Value().StringValueOK()
	simple := func(opType, coll string, extra func(b *bsoncore.DocumentBuilder)) {
		b := bsoncore.NewDocumentBuilder()
		r.header(b, tok, opType, e, info)
		b.AppendDocument("ns", nsDoc(db, coll))
		if extra != nil {
			extra(b)
		}
		out = append(out, event{tok: tok, doc: b.Build(), db: db, coll: coll})
	}
	invalidate := func() {
		it := tok
		it.Flags |= flagInvalidate
		b := bsoncore.NewDocumentBuilder().
			AppendDocument("_id", it.Doc()).
			AppendString("operationType", "invalidate").
			AppendTimestamp("clusterTime", info.ts.Sec(), info.ts.Inc())
		if info.wall.Type != 0 {
			b.AppendValue("wallTime", info.wall)
		}
		out = append(out, event{tok: it, doc: b.Build(), ends: true})
	}
	switch name {
	case "drop":
		if !r.scope.watches(db, arg) {
			return out
		}
		simple("drop", arg, nil)
		if r.scope.Coll != "" {
			invalidate()
		}
	case "renameCollection":
		from, _ := o.Lookup("renameCollection").StringValueOK()
		to, _ := o.Lookup("to").StringValueOK()
		fdb, fcoll, _ := strings.Cut(from, ".")
		tdb, tcoll, _ := strings.Cut(to, ".")
		// As in mongod, a stream sees the renames of the collections it
		// watches and the renames to them (which replace a collection
		// with dropTarget), and a collection's stream ends after either.
		if !r.scope.watches(fdb, fcoll) && !r.scope.watches(tdb, tcoll) {
			return out
		}
		simple("rename", fcoll, func(b *bsoncore.DocumentBuilder) {
			b.AppendDocument("to", nsDoc(tdb, tcoll))
			if r.spec.ShowExpandedEvents {
				b.AppendDocument("operationDescription", renameDesc(o, nsDoc(tdb, tcoll)))
			}
		})
		if r.scope.Coll != "" {
			invalidate()
		}
	case "dropDatabase":
		if r.scope.DB != "" && r.scope.DB != db || r.scope.Coll != "" || !r.scope.watches(db, "") {
			return out
		}
		simple("dropDatabase", "", nil)
		if r.scope.DB != "" {
			invalidate()
		}
	case "create", "createIndexes", "dropIndexes", "collMod":
		if !r.spec.ShowExpandedEvents || !r.scope.watches(db, arg) {
			return out
		}
		switch name {
		case "create":
			simple("create", arg, func(b *bsoncore.DocumentBuilder) {
				b.AppendDocument("operationDescription", withoutFirst(o))
			})
		case "createIndexes":
			simple("createIndexes", arg, func(b *bsoncore.DocumentBuilder) {
				b.AppendDocument("operationDescription", indexesDesc(withoutFirst(o)))
			})
		case "dropIndexes":
			spec, _ := e.Lookup("o2").DocumentOK()
			simple("dropIndexes", arg, func(b *bsoncore.DocumentBuilder) {
				b.AppendDocument("operationDescription", indexesDesc(spec))
			})
		case "collMod":
			simple("modify", arg, func(b *bsoncore.DocumentBuilder) {
				b.AppendDocument("operationDescription", withoutFirst(o))
			})
		}
	}
	return out
}

// renameDesc is a rename event's operationDescription, as mongod's: the
// oplog entry's fields but renameCollection and stayTemp, with to as a
// namespace document; so dropTarget, the UUID of the collection the
// rename replaced, when there was one.
func renameDesc(o, to bsoncore.Document) bsoncore.Document {
	els, _ := o.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, el := range els {
		switch el.Key() {
		case "renameCollection", "stayTemp":
		case "to":
			b.AppendDocument("to", to)
		default:
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return b.Build()
}

// withoutFirst is d without its first field (the command name).
func withoutFirst(d bsoncore.Document) bsoncore.Document {
	els, _ := d.Elements()
	b := bsoncore.NewDocumentBuilder()
	for i, el := range els {
		if i > 0 {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return b.Build()
}

// indexesDesc is {indexes: [spec]}.
func indexesDesc(spec bsoncore.Document) bsoncore.Document {
	arr := bsoncore.NewArrayBuilder().AppendDocument(spec).Build()
	return bsoncore.NewDocumentBuilder().AppendArray("indexes", arr).Build()
}

// viewEvent turns a write to db.system.views, which is how a view is
// created, modified and dropped (as in mongod), into the create, modify
// or drop event of the view, with showExpandedEvents only. The
// operationDescription of create and modify is the view's {viewOn,
// pipeline}.
func (r *Reader) viewEvent(out []event, op string, e, o bsoncore.Document, db string, info entryInfo, tok Token) []event {
	if !r.spec.ShowExpandedEvents {
		return out
	}
	var id string
	var def bsoncore.Document
	opType := ""
	switch op {
	case oplog.OpInsert:
		id, _ = o.Lookup("_id").StringValueOK()
		def, opType = o, "create"
	case oplog.OpUpdate:
		key, _ := e.Lookup("o2").DocumentOK()
		id, _ = key.Lookup("_id").StringValueOK()
		if _, err := o.LookupErr("viewOn"); err != nil {
			return out // a diff: not a redefinition Lode writes
		}
		def, opType = o, "modify"
	case oplog.OpDelete:
		id, _ = o.Lookup("_id").StringValueOK()
		opType = "drop"
	}
	vdb, view, ok := strings.Cut(id, ".")
	if !ok || vdb != db || !r.scope.watches(db, view) {
		return out
	}
	b := bsoncore.NewDocumentBuilder()
	r.header(b, tok, opType, bsoncore.Document{5, 0, 0, 0, 0}, info)
	b.AppendDocument("ns", nsDoc(db, view))
	if def != nil {
		desc := bsoncore.NewDocumentBuilder()
		for _, k := range []string{"viewOn", "pipeline", "collation"} {
			if v, err := def.LookupErr(k); err == nil {
				desc.AppendValue(k, v)
			}
		}
		b.AppendDocument("operationDescription", desc.Build())
	}
	return append(out, event{tok: tok, doc: b.Build(), db: db, coll: view})
}
