package update

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// msgStyle is how error messages quote values and documents: mongod's
// BSONElement::toString form ({ a: 1 }, nan.0, ObjectId('...')).
var msgStyle = bsonutil.Style{}

// loc is a position in the document being updated: an existing node, or
// a missing one below parent that a path-creating operator may create.
type loc struct {
	parent *loc
	name   string
	node   *mnode // nil when missing
	path   []string
}

func (l *loc) dotted() string { return strings.Join(l.path, ".") }

// applier holds the state of one Apply call.
type applier struct {
	u        *Update
	opts     ApplyOptions
	root     *mnode
	id       bsoncore.Value // the original _id, Type 0 when absent
	modified bool
}

// maxBackfill is the largest number of nulls an update may add to pad an
// array (mongod's kMaxPaddingAllowed).
const maxBackfill = 1500000

// Apply runs the update against doc. It returns the updated document and
// whether it differs from doc; when modified is false, out is doc itself.
// Errors are *errs.Error with mongod's codes and messages.
func (u *Update) Apply(doc bsoncore.Document, opts ApplyOptions) (out bsoncore.Document, modified bool, err error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if u.IsReplacement() {
		return applyReplacement(doc, u.replacement, opts.Insert, true)
	}
	root := &mnode{t: bsoncore.TypeEmbeddedDocument, raw: bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}}
	a := &applier{u: u, opts: opts, root: root}
	a.id, _ = doc.LookupErr("_id")
	if err := a.walk(u.root, &loc{node: root}); err != nil {
		return nil, false, err
	}
	if !a.modified {
		return doc, false, nil
	}
	if opts.Insert {
		moveIDFirst(root)
	}
	out = root.appendValue(make([]byte, 0, len(doc)+64))
	if bytes.Equal(out, doc) {
		return doc, false, nil
	}
	// Operators validate only the fields they write (checkDollarField):
	// a $-prefixed top-level field already stored is left alone.
	if err := validateResult(out, opts.Insert, false); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// checkDollarField refuses an operator that writes a $-prefixed top-level
// field of an existing document, as mongod's storage validation does for
// modified paths. An upsert's insert may create one (MongoDB treats it as
// an insert), and nested $-prefixed names are allowed.
func (a *applier) checkDollarField(l *loc) error {
	if a.opts.Insert || len(l.path) == 0 || !strings.HasPrefix(l.path[0], "$") {
		return nil
	}
	if len(l.path) > 1 {
		// A dotted path whose first field is $-prefixed creates or
		// changes that top-level field ({$set: {"$a.b": 1}}).
		return errs.New(errs.DollarPrefixedFieldName, "The dollar ($) prefixed field '%s' in '%s' is not valid for storage.", l.path[0], l.dotted())
	}
	if l.node == nil {
		return nil
	}
	return dollarFieldError(l.path[0])
}

// validateResult checks the size limit and the top-level fields of a new
// document: an upsert's new document (insert) has its own size error, as
// in mongod's UpsertStage; the _id type; and with dollars set, that no
// top-level field name starts with "$" (a replacement document).
func validateResult(out bsoncore.Document, insert, dollars bool) error {
	if insert && len(out) > MaxDocumentSize {
		return errs.New(errs.Location17420, "Document to upsert is larger than %d", MaxDocumentSize)
	}
	if len(out) > MaxDocumentSize {
		return errs.New(errs.Location17419, "Resulting document after update is larger than %d", MaxDocumentSize)
	}
	for rest := out[4:]; len(rest) > 1; {
		e, r, ok := bsoncore.ReadElement(rest)
		if !ok {
			return errs.New(errs.InternalError, "update produced invalid BSON")
		}
		rest = r
		if !dollars && strings.HasPrefix(e.Key(), "$") {
			continue
		}
		if err := checkTopLevelField(e.Key(), e.Value()); err != nil {
			return err
		}
	}
	return nil
}

func moveIDFirst(root *mnode) {
	root.expand()
	for i, n := range root.names {
		if n == "_id" {
			if i == 0 {
				return
			}
			k := root.kids[i]
			root.remove(i)
			root.names = append([]string{"_id"}, root.names...)
			root.kids = append([]*mnode{k}, root.kids...)
			return
		}
	}
}

func (a *applier) child(l *loc, name string) *loc {
	c := &loc{parent: l, name: name, path: append(append([]string(nil), l.path...), name)}
	if l.node != nil && (l.node.isDoc() || l.node.isArray()) {
		if i := l.node.find(name); i >= 0 {
			c.node = l.node.kids[i]
		}
	}
	return c
}

// walk applies the subtree u at l.
func (a *applier) walk(u *node, l *loc) error {
	if u.leaf != nil {
		changed, err := u.leaf.apply(a, l)
		if err != nil {
			return err
		}
		if changed {
			if err := a.checkImmutable(l.path); err != nil {
				return err
			}
			if err := a.checkDollarField(l); err != nil {
				return err
			}
			a.modified = true
		}
		return nil
	}
	if u.arrayKind {
		return a.walkArray(u, l)
	}
	order := u.order
	kids := u.kids
	if pc, ok := u.kids["$"]; ok {
		if a.opts.Pos < 0 {
			return errs.New(errs.BadValue, "The positional operator did not find the match needed from the query.")
		}
		name := strconv.Itoa(a.opts.Pos)
		kids = make(map[string]*node, len(u.kids))
		for k, c := range u.kids {
			if k != "$" {
				kids[k] = c
			}
		}
		if prev, dup := kids[name]; dup {
			m, err := merge(prev, pc, strings.Join(append(append([]string(nil), l.path...), name), "."))
			if err != nil {
				return err
			}
			kids[name] = m
		} else {
			kids[name] = pc
			order = insertSorted(order, name)
		}
	}
	for _, k := range order {
		if err := a.walk(kids[k], a.child(l, k)); err != nil {
			return err
		}
	}
	return nil
}

func insertSorted(order []string, name string) []string {
	out := make([]string, 0, len(order)+1)
	done := false
	for _, k := range order {
		if !done && lessField(name, k) {
			out = append(out, name)
			done = true
		}
		out = append(out, k)
	}
	if !done {
		out = append(out, name)
	}
	return out
}

// walkArray applies the $[] and $[<identifier>] children of u to each
// element of the array at l.
func (a *applier) walkArray(u *node, l *loc) error {
	if l.node == nil {
		return errs.New(errs.BadValue,
			"The path '%s' must exist in the document in order to apply array updates.", l.dotted())
	}
	if !l.node.isArray() {
		return errs.New(errs.BadValue,
			"Cannot apply array updates to non-array element %s", bsonutil.FormatElem(l.name, l.node.value(), msgStyle))
	}
	l.node.expand()
	for i := 0; i < len(l.node.kids); i++ {
		var sub *node
		elem := l.node.kids[i]
		for _, k := range u.order {
			id := k[2 : len(k)-1]
			if id != "" && !matchWrapped(a.u.filters[id], id, elem.value()) {
				continue
			}
			if sub == nil {
				sub = u.kids[k]
				continue
			}
			m, err := merge(sub, u.kids[k], strings.Join(append(append([]string(nil), l.path...), strconv.Itoa(i)), "."))
			if err != nil {
				return err
			}
			sub = m
		}
		if sub == nil {
			continue
		}
		if err := a.walk(sub, a.child(l, strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return nil
}

// checkImmutable rejects a change below or at _id when the document had one.
func (a *applier) checkImmutable(path []string) error {
	if a.id.Type == 0 || len(path) == 0 || path[0] != "_id" {
		return nil
	}
	return errs.New(errs.ImmutableField,
		"Performing an update on the path '%s' would modify the immutable field '_id'", strings.Join(path, "."))
}

// set stores v at l, creating missing parents as documents.
func (a *applier) set(l *loc, v *mnode) error {
	if l.node != nil && l.parent != nil {
		p := l.parent.node
		if i := p.find(l.name); i >= 0 {
			p.kids[i] = v
			l.node = v
			return nil
		}
	}
	p := l.parent
	if p.node == nil {
		if err := a.set(p, newDoc()); err != nil {
			return err
		}
	}
	pn := p.node
	switch {
	case pn.isDoc():
		pn.expand()
		pn.appendChild(l.name, v)
	case pn.isArray():
		idx, ok := arrayIndex(l.name)
		if !ok {
			return notViable(l.name, p)
		}
		pn.expand()
		if idx-len(pn.kids) > maxBackfill {
			return errs.New(errs.CannotBackfillArray,
				"can't backfill more than %d elements", maxBackfill)
		}
		for len(pn.kids) < idx {
			pn.kids = append(pn.kids, newNull())
		}
		if idx < len(pn.kids) {
			pn.kids[idx] = v
		} else {
			pn.kids = append(pn.kids, v)
		}
	default:
		return notViable(l.name, p)
	}
	l.node = v
	return nil
}

func notViable(name string, p *loc) error {
	return errs.New(errs.PathNotViable, "Cannot create field '%s' in element {%s}",
		name, bsonutil.FormatElem(p.name, p.node.value(), msgStyle))
}

// remove deletes the existing node at l; in an array it becomes null.
func (a *applier) remove(l *loc) {
	p := l.parent.node
	i := p.find(l.name)
	if i < 0 {
		return
	}
	if p.isArray() {
		p.kids[i] = newNull()
	} else {
		p.remove(i)
	}
	l.node = nil
}

// idString renders the document's _id for error messages as mongod does:
// "_id: 1", or "no id".
func (a *applier) idString() string {
	id, err := bsoncore.Document(a.root.value().Data).LookupErr("_id")
	if err != nil {
		return "no id"
	}
	return bsonutil.FormatElem("_id", id, msgStyle)
}

// ReplaceWith replaces doc by repl as a replacement update does (keeping
// doc's _id when repl has none, refusing a changed _id with 66) and reports
// whether the result differs from doc. It serves pipeline-style updates,
// whose output replaces the document: $-prefixed top-level fields are
// allowed there, as in mongod. insert is set for an upsert's new document.
func ReplaceWith(doc, repl bsoncore.Document, insert bool) (bsoncore.Document, bool, error) {
	return applyReplacement(doc, repl, insert, false)
}

// applyReplacement replaces doc by repl, keeping its _id. dollars refuses
// $-prefixed top-level fields in the result.
func applyReplacement(doc, repl bsoncore.Document, insert, dollars bool) (bsoncore.Document, bool, error) {
	oldID, hasOld := doc.LookupErr("_id")
	newID, errNew := repl.LookupErr("_id")
	out := make([]byte, 0, len(repl)+32)
	if hasOld == nil && errNew != nil {
		idx, b := bsoncore.AppendDocumentStart(out)
		b = bsoncore.AppendValueElement(b, "_id", oldID)
		rest, _ := repl.Elements()
		for _, e := range rest {
			b = append(b, e...)
		}
		out, _ = bsoncore.AppendDocumentEnd(b, idx)
	} else {
		if hasOld == nil && errNew == nil && !bsonutil.Equal(oldID, newID) {
			return nil, false, errs.New(errs.ImmutableField,
				"After applying the update, the (immutable) field '_id' was found to have been altered to %s",
				bsonutil.FormatElem("_id", newID, msgStyle))
		}
		out = append(out, repl...)
	}
	if bytes.Equal(out, doc) {
		return doc, false, nil
	}
	if err := validateResult(out, insert, dollars); err != nil {
		return nil, false, err
	}
	return out, true, nil
}
