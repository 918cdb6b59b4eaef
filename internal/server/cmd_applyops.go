package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

func init() {
	c := admin(cmdApplyOps, authzRule{needs: applyOpsNeeds, check: applyOpsCheck}, "applyOps").takingWriteConcern().inApplyOps()
	c.applyOpsEntry = onAdmin
	register(c)
}

// cmdApplyOps applies oplog entries, in order, as mongod's applyOps does
// in its non-atomic mode (mongorestore --oplogReplay sends one entry per
// command): i inserts (an existing _id is replaced, as with mongod's
// alwaysUpsert), u applies a $v: 2 diff, a replacement or update
// operators to the document o2 names (upserting), d deletes the document
// o names, c runs a catalog command (create, drop, renameCollection,
// dropDatabase, collMod, createIndexes, dropIndexes, nested applyOps) and
// n does nothing. The reply counts the entries applied, with a result
// for each. A create entry's ui becomes the new collection's UUID; other
// entries find their collection by ns, not ui.
func cmdApplyOps(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		// applyOps names its namespaces in each entry.
		return nil, errs.New(errs.Unauthorized, "applyOps may only be run against the admin database.")
	}
	v := req.Cmd.Index(0).Value()
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, wrongType(req.Name, "applyOps", v, "array")
	}
	a := applier{s: s, req: req, alwaysUpsert: true}
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "bypassDocumentValidation":
			a.opts.BypassDocumentValidation, err = argBool(req.Name, k, v)
		case "alwaysUpsert":
			a.alwaysUpsert, err = argBool(req.Name, k, v)
		case "preCondition":
			if arr, ok := v.ArrayOK(); !ok || len(arr) > 5 {
				err = errs.New(errs.NotImplemented, "applyOps preCondition is not supported by Lode")
			}
		case "allowAtomic":
			var on bool
			if on, err = argBool(req.Name, k, v); err == nil && on {
				err = errs.New(errs.NotImplemented, "atomic applyOps is not supported by Lode")
			}
		case "oplogApplicationMode":
			var mode string
			if mode, err = argString(req.Name, k, v); err == nil && mode != "ApplyOps" {
				err = errs.New(errs.NotImplemented, "applyOps oplogApplicationMode %q is not supported by Lode", mode)
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid applyOps array: %v", err)
	}
	results := bsoncore.NewArrayBuilder()
	for _, ev := range vals {
		e, ok := ev.DocumentOK()
		if !ok {
			return nil, errs.New(errs.FailedToParse, "cannot apply a malformed operation in applyOps: %s", ev.String())
		}
		if err := a.apply(ctx, e); err != nil {
			return nil, err
		}
		results.AppendBoolean(true)
	}
	b := bsoncore.NewDocumentBuilder()
	appendNumber(b, "applied", int64(len(vals)))
	return b.AppendArray("results", results.Build()).Build(), nil
}

// applier applies the entries of one applyOps command.
type applier struct {
	s            *Server
	req          *Request
	opts         engine.WriteOptions
	alwaysUpsert bool
}

// apply applies one entry.
func (a *applier) apply(ctx context.Context, e bsoncore.Document) error {
	op, ok := e.Lookup("op").StringValueOK()
	if !ok {
		return errs.New(errs.FailedToParse, "applyOps: the operation has no op field: %s", e.String())
	}
	nsName, ok := e.Lookup("ns").StringValueOK()
	if !ok && op != oplog.OpNoop {
		return errs.New(errs.FailedToParse, "applyOps: the operation has no ns field: %s", e.String())
	}
	o, hasO := e.Lookup("o").DocumentOK()
	if !hasO && op != oplog.OpNoop {
		return errs.New(errs.FailedToParse, "applyOps: the operation has no o field: %s", e.String())
	}
	if op == oplog.OpNoop {
		return nil
	}
	db, coll, ok := splitNS(nsName)
	if !ok {
		return errs.New(errs.InvalidNamespace, "applyOps: invalid namespace '%s'", nsName)
	}
	if op == oplog.OpCommand {
		if coll != "$cmd" {
			return errs.New(errs.InvalidNamespace, "applyOps: a command's namespace must be '<db>.$cmd', not '%s'", nsName)
		}
		if u, ok := entryUUID(e); ok && o.Index(0).Key() == "create" {
			// A create keeps the collection's UUID (mongorestore
			// --preserveUUID); other commands name collections by ns.
			ctx = context.WithValue(ctx, createUUIDKey{}, &u)
		}
		return a.command(ctx, db, o)
	}
	var err error
	switch op {
	case oplog.OpInsert:
		err = a.insert(ctx, db, coll, o)
	case oplog.OpUpdate:
		o2, ok := e.Lookup("o2").DocumentOK()
		if !ok {
			return errs.New(errs.FailedToParse, "applyOps: an update needs o2, the document's _id: %s", e.String())
		}
		err = a.update(ctx, db, coll, o, o2)
	case oplog.OpDelete:
		var res engine.DeleteResult
		res, err = a.s.eng.Delete(ctx, db, coll, []engine.DeleteSpec{{Filter: o, Limit: 1}}, a.opts)
		if err == nil && len(res.WriteErrors) > 0 {
			err = res.WriteErrors[0].Err
		}
	default:
		return errs.New(errs.BadValue, "applyOps: unknown op '%s'", op)
	}
	return err
}

// insert inserts o, replacing the document with its _id if there is one.
func (a *applier) insert(ctx context.Context, db, coll string, o bsoncore.Document) error {
	res, err := a.s.eng.Insert(ctx, db, coll, []bsoncore.Document{o}, a.opts)
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		werr := res.WriteErrors[0].Err
		id, noID := o.LookupErr("_id")
		if werr.Code != errs.DuplicateKey || !a.alwaysUpsert || noID != nil {
			return werr
		}
		return a.write(ctx, db, coll, idFilter(id), bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: o})
	}
	a.s.inserts.notify(ns(db, coll))
	return nil
}

// update applies an update entry's o to the document o2 names.
func (a *applier) update(ctx context.Context, db, coll string, o, o2 bsoncore.Document) error {
	if v, ok := o.Lookup("$v").AsInt64OK(); ok && v == 2 {
		diff, ok := o.Lookup("diff").DocumentOK()
		if !ok {
			return errs.New(errs.FailedToParse, "applyOps: a $v: 2 update needs a diff document: %s", o.String())
		}
		cur, err := a.current(ctx, db, coll, o2)
		if err != nil {
			return err
		}
		if cur == nil {
			if !a.alwaysUpsert {
				return nil
			}
			cur = o2 // upserting: the diff applies to the document's _id
		}
		post, err := oplog.ApplyDiff(cur, diff)
		if err != nil {
			return errs.New(errs.FailedToParse, "applyOps: %v", err)
		}
		return a.write(ctx, db, coll, o2, bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: post})
	}
	return a.write(ctx, db, coll, o2, bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: o})
}

// current reads the document matching filter, nil when there is none.
func (a *applier) current(ctx context.Context, db, coll string, filter bsoncore.Document) (bsoncore.Document, error) {
	it, err := a.s.eng.Find(ctx, db, coll, engine.FindSpec{Filter: filter, Limit: 1})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	d, err := it.Next()
	if err != nil || d == nil {
		return nil, err
	}
	return append(bsoncore.Document(nil), d...), nil
}

// write updates the document matching filter with update (a replacement
// or operators), upserting when the applier does.
func (a *applier) write(ctx context.Context, db, coll string, filter bsoncore.Document, update bsoncore.Value) error {
	res, err := a.s.eng.Update(ctx, db, coll, []engine.UpdateSpec{{Filter: filter, Update: update, Upsert: a.alwaysUpsert}}, a.opts)
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	if len(res.Upserted) > 0 {
		a.s.inserts.notify(ns(db, coll))
	}
	return nil
}

// idFilter is {_id: id}.
func idFilter(id bsoncore.Value) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendValue("_id", id).Build()
}

// command runs a command entry's o on db through the command's own
// handler, from the entry's form to the command's as the command's
// descriptor says (applyOpsEntry: create without its (default) idIndex,
// createIndexes with its one specification in indexes, renameCollection
// and applyOps on admin).
func (a *applier) command(ctx context.Context, db string, o bsoncore.Document) error {
	first, err := o.IndexErr(0)
	if err != nil {
		return errs.New(errs.FailedToParse, "applyOps: empty command entry")
	}
	name := first.Key()
	c := lookupCommand(name)
	if c.applyOps != yes {
		return errs.New(errs.BadValue, "Invalid key '%s' found in field 'o' of an applyOps command entry", name)
	}
	body := copyEntry(o)
	if c.applyOpsEntry != nil {
		body, db = c.applyOpsEntry(o, db)
	}
	cmd := appendFields(body, bsoncore.NewDocumentBuilder().AppendString("$db", db).Build())
	if c == noCommand {
		return errs.New(errs.CommandNotFound, "no such command: '%s'", name)
	}
	sub := &Request{Name: name, DB: db, Cmd: cmd, conn: a.req.conn}
	_, err = c.handler(ctx, a.s, sub)
	if err != nil && c.applyOpsGoneOK && errs.Is(err, errs.NamespaceNotFound) {
		return nil // as mongod applies it: the collection is already gone
	}
	return err
}

// applyOpsNeeds: what each entry needs, as mongod checks applyOps: insert,
// update (and insert, for the upsert) or remove on the entry's namespace,
// and a command entry what that command needs.
func applyOpsNeeds(req *Request) ([]need, error) { return applyOpsNeedsFor(req, nil) }

// applyOpsCheck is applyOps's rule for an authenticated user: a command
// entry is checked as that command would be, with the rules that depend
// on who asks (create and collMod of a view check what the view's
// pipeline reads), as mongod's checkOperationAuthorization runs the
// command's own check.
func applyOpsCheck(req *Request, g *auth.Grants) ([]need, error) {
	needs, err := applyOpsNeedsFor(req, g)
	if err != nil {
		return nil, err
	}
	if !allAllowed(g, needs) {
		return nil, errs.New(errs.Unauthorized, "not authorized on %s to execute command %s", req.DB, renderCmd(req.Cmd))
	}
	return needs, nil
}

// applyOpsNeedsFor: what the entries need; with g, a command entry whose
// rule depends on the user is checked by that rule.
func applyOpsNeedsFor(req *Request, g *auth.Grants) ([]need, error) {
	arr, ok := req.Cmd.Index(0).Value().ArrayOK()
	if !ok {
		return nil, nil // nothing to apply: the command refuses it
	}
	vals, _ := arr.Values()
	var out []need
	for _, v := range vals {
		e, ok := v.DocumentOK()
		if !ok {
			continue
		}
		op, _ := e.Lookup("op").StringValueOK()
		nsName, _ := e.Lookup("ns").StringValueOK()
		db, coll, _ := strings.Cut(nsName, ".")
		switch op {
		case oplog.OpInsert:
			out = append(out, collNeed(db, coll, auth.ActInsert))
		case oplog.OpUpdate:
			out = append(out, collNeed(db, coll, auth.ActUpdate, auth.ActInsert))
		case oplog.OpDelete:
			out = append(out, collNeed(db, coll, auth.ActRemove))
		case oplog.OpCommand:
			o, _ := e.Lookup("o").DocumentOK()
			first, err := o.IndexErr(0)
			if err != nil {
				continue
			}
			rule := lookupCommand(first.Key()).authz
			if rule.needs == nil && rule.check == nil {
				continue
			}
			sub := &Request{Name: first.Key(), DB: db, Cmd: o}
			if first.Key() == "renameCollection" || first.Key() == "applyOps" {
				sub.DB = "admin"
			}
			var n []need
			if g != nil && rule.check != nil {
				n, err = rule.check(sub, g)
			} else if rule.needs != nil {
				n, err = rule.needs(sub)
			}
			if err != nil {
				return nil, err
			}
			out = append(out, n...)
		}
	}
	return out, nil
}

// collNeed is acts on db.coll.
func collNeed(db, coll string, acts ...auth.Action) need {
	return need{res: auth.CollResource(db, coll), acts: auth.Actions(acts...)}
}

// createUUIDKey carries an applyOps create entry's ui to cmdCreate.
type createUUIDKey struct{}

// entryUUID returns an entry's ui, a UUID (binary subtype 4, 16 bytes).
func entryUUID(e bsoncore.Document) ([16]byte, bool) {
	var u [16]byte
	sub, data, ok := e.Lookup("ui").BinaryOK()
	if !ok || sub != 4 || len(data) != 16 {
		return u, false
	}
	copy(u[:], data)
	return u, true
}

// copyEntry is a command entry's o as the command it runs, field by
// field.
func copyEntry(o bsoncore.Document) bsoncore.Document {
	els, _ := o.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, el := range els {
		b.AppendValue(el.Key(), el.Value())
	}
	return b.Build()
}

// onAdmin is the applyOps form of an applyOps command entry: run on
// admin.
func onAdmin(o bsoncore.Document, _ string) (bsoncore.Document, string) {
	return copyEntry(o), "admin"
}
