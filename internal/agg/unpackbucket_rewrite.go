package agg

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/expr"
)

// This file moves work from after $_internalUnpackBucket to before it,
// onto the buckets, as mongod 7.0 optimizes the stage (its doOptimizeAt).
// It rewrites the raw pipeline before parsing, so that what it puts
// before the stage goes down into the buckets collection's query like
// any leading $match, $sort and $limit (pushdown), and explain shows the
// pipeline as run. In order, on the stages that follow the unpack:
//
//   - $match: the clauses on the meta field (renamed to the bucket's
//     "meta") go before the unpack whole; the others stay as the stage's
//     eventFilter, each measurement tested during unpacking, and those on
//     the time field also yield bucket-level predicates before it:
//     control.max/control.min of the time field widened by
//     bucketMaxSpanSeconds and, unless the collection holds dates
//     outside 1970-2106, bounds on the bucket _id (an ObjectId whose
//     time is the bucket's rounded minimum), so a clustered scan reads
//     only the buckets of the range. When every remaining clause is on
//     the time field, wholeBucketFilter (control.min/max inside the
//     range) spares the test of each measurement of a bucket wholly in
//     range.
//   - $sort on the meta field only (no eventFilter): renamed, before.
//   - $sort on the meta field then the time field, and a $group by the
//     meta path taking $first (or $last) of each: "lastpoint", a $sort
//     and a $group of the buckets before, so only the bucket holding
//     each meta value's first (last) measurement is unpacked.
//   - $sort on the time field alone (and a $limit after it): the buckets
//     read in _id order ({$natural} hint), $_internalBoundedSort after
//     (unpackbucket_sort.go).
//   - $limit (no eventFilter): a copy before, the original kept after.
//   - $group whose _id reads only the meta field (or is constant) and
//     whose accumulators are $min/$max of a field path (or count: $sum of
//     1, $count): replaced by a $group over the buckets on control.min/
//     control.max, meta and control.count: nothing is unpacked. So is a
//     $count.
//   - the fields the rest of the pipeline reads, when they are finite
//     (unpackbucket_deps.go), become the stage's include: only they are
//     unpacked; or an all-boolean $project (or a $unset) right after is
//     absorbed.
//   - comparisons on other measurement fields: bounds on their
//     control.min/control.max (or differing types there) before.

// rewriteUnpackBucket rewrites the stages after the pipeline's first
// $_internalUnpackBucket. A specification that does not parse, or that
// already carries what a rewrite sets (include/exclude fields, filters,
// computed meta fields), is left as it is.
func rewriteUnpackBucket(pipeline []bsoncore.Document, pc *ParseContext) []bsoncore.Document {
	for i, d := range pipeline {
		if len(d) < 5 {
			return pipeline
		}
		// Every aggregate passes here: look at the stage's name without
		// allocating.
		if _, key, _, _, ok := readElem(d[4:]); !ok || string(key) != "$_internalUnpackBucket" {
			continue
		}
		_, v, ok := rawStage(d)
		if !ok {
			return pipeline
		}
		spec, err := parseUnpackSpec(v)
		if err != nil || len(spec.fields) > 0 || spec.include || spec.eventFilter != nil || spec.wholeBucketFilter != nil || len(spec.computedMeta) > 0 {
			return pipeline
		}
		r := &unpackRewrite{spec: spec, pc: pc}
		out := slices.Clone(pipeline[:i])
		return append(out, r.run(pipeline[i+1:])...)
	}
	return pipeline
}

// unpackRewrite is the state of one rewrite.
type unpackRewrite struct {
	spec unpackSpec
	pc   *ParseContext
	// before are the bucket-level stages that go before the unpack.
	before []bsoncore.Document
}

// rawStage splits a stage document into its name and argument.
func rawStage(d bsoncore.Document) (string, bsoncore.Value, bool) {
	els, err := d.Elements()
	if err != nil || len(els) != 1 {
		return "", bsoncore.Value{}, false
	}
	return els[0].Key(), els[0].Value(), true
}

// run rewrites rest, the stages after the unpack, and returns the
// pipeline from the bucket-level stages on.
func (r *unpackRewrite) run(rest []bsoncore.Document) []bsoncore.Document {
	triedLimit := false
loop:
	for len(rest) > 0 {
		name, v, _ := rawStage(rest[0])
		switch name {
		case "$sort":
			if r.spec.eventFilter != nil {
				if ts, n, ok := r.timeSort(rest); ok {
					rest = append(ts, rest[n:]...)
				}
				break loop
			}
			s, ok := r.metaSort(v)
			if !ok {
				if lp, ok := r.lastpoint(rest); ok {
					r.before = append(r.before, lp...)
				} else if ts, n, ok := r.timeSort(rest); ok {
					rest = append(ts, rest[n:]...)
				}
				break loop
			}
			r.before = append(r.before, specDoc("$sort", docValue(s)))
			rest = rest[1:]
		case "$limit":
			if triedLimit || r.spec.eventFilter != nil {
				break loop
			}
			triedLimit = true
			r.before = append(r.before, rest[0])
			break loop
		case "$match":
			if r.spec.eventFilter != nil {
				break loop
			}
			// Consecutive $match stages are one.
			n := 1
			for n < len(rest) {
				if nm, _, _ := rawStage(rest[n]); nm != "$match" {
					break
				}
				n++
			}
			f, ok := r.mergeMatches(rest[:n])
			if !ok || !r.absorbMatch(f) {
				break loop
			}
			rest = rest[n:]
		case "$group", "$count":
			if r.spec.eventFilter != nil {
				break loop
			}
			if g, ok := r.bucketGroup(name, v); ok {
				return append(append(r.before, g...), rest[1:]...)
			}
			break loop
		default:
			break loop
		}
	}
	rest = r.internalizeProject(rest)
	out := append(r.before, specDoc("$_internalUnpackBucket", docValue(r.spec.document(r.spec.eventFilter, r.spec.wholeBucketFilter))))
	return append(out, rest...)
}

// internalizeProject sets the fields the unpack produces: an all-boolean
// inclusion $project right after it is absorbed; else the fields the
// rest reads when finite; else an all-boolean exclusion $project is
// absorbed.
func (r *unpackRewrite) internalizeProject(rest []bsoncore.Document) []bsoncore.Document {
	if len(rest) == 0 {
		return rest
	}
	proj, inclusion, boolean := r.nextProject(rest[0])
	if u := unsetFields(rest[0]); u != nil && r.spec.eventFilter == nil {
		if _, ok := pipelineDeps(rest, nil); !ok {
			r.spec.include, r.spec.fields = false, u
			return rest[1:]
		}
	}
	if proj != nil && inclusion && boolean && r.spec.eventFilter == nil {
		r.setFields(proj, true)
		return rest[1:]
	}
	if deps, ok := pipelineDeps(rest, r.spec.eventFilter); ok {
		r.spec.include = true
		r.spec.fields = deps
		return rest
	}
	if proj != nil && !inclusion && boolean && r.spec.eventFilter == nil {
		r.setFields(proj, false)
		return rest[1:]
	}
	return rest
}

// unsetFields returns the fields of a $unset stage d that removes only
// top-level fields, or nil.
func unsetFields(d bsoncore.Document) []string {
	name, v, _ := rawStage(d)
	if name != "$unset" {
		return nil
	}
	var names []string
	switch v.Type {
	case bsoncore.TypeString:
		names = []string{v.StringValue()}
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		for _, x := range vals {
			s, ok := x.StringValueOK()
			if !ok {
				return nil
			}
			names = append(names, s)
		}
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, ".$") {
			return nil
		}
	}
	return names
}

// nextProject returns the argument of a $project stage d, whether it
// includes, and whether its every value is a boolean.
func (r *unpackRewrite) nextProject(d bsoncore.Document) (bsoncore.Document, bool, bool) {
	name, v, _ := rawStage(d)
	p, ok := v.DocumentOK()
	if name != "$project" || !ok {
		return nil, false, false
	}
	els, err := p.Elements()
	if err != nil || len(els) == 0 {
		return nil, false, false
	}
	boolean, inclusion := true, false
	for _, e := range els {
		ev := e.Value()
		if ev.Type != bsoncore.TypeBoolean {
			boolean = false
		}
		if e.Key() != "_id" && !isFalseProj(ev) {
			inclusion = true
		}
		if strings.Contains(e.Key(), ".") {
			boolean = false
		}
	}
	return p, inclusion, boolean
}

// setFields makes the top-level fields of an all-boolean projection the
// unpack's include or exclude list, as mongod's internalizeProject: an
// _id whose value is the other mode's is left out of the list.
func (r *unpackRewrite) setFields(p bsoncore.Document, include bool) {
	els, _ := p.Elements()
	r.spec.include = include
	r.spec.fields = nil
	for _, e := range els {
		if e.Key() == "_id" && e.Value().Boolean() != include {
			continue
		}
		r.spec.fields = append(r.spec.fields, e.Key())
	}
}

// mergeMatches returns the filter of consecutive $match stages.
func (r *unpackRewrite) mergeMatches(ms []bsoncore.Document) (bsoncore.Document, bool) {
	var fs []bsoncore.Document
	for _, m := range ms {
		_, v, _ := rawStage(m)
		f, ok := v.DocumentOK()
		if !ok {
			return nil, false
		}
		fs = append(fs, f)
	}
	return andOf(fs), true
}

// andOf is the conjunction of filters: the one itself, or {$and: [...]}.
func andOf(fs []bsoncore.Document) bsoncore.Document {
	if len(fs) == 1 {
		return fs[0]
	}
	ab := bsoncore.NewArrayBuilder()
	for _, f := range fs {
		ab.AppendDocument(f)
	}
	return bsoncore.NewDocumentBuilder().AppendArray("$and", ab.Build()).Build()
}

// clauses flattens a filter's implicit and explicit conjunctions into its
// clauses, one element each.
func clauses(f bsoncore.Document, out []bsoncore.Document) ([]bsoncore.Document, bool) {
	els, err := f.Elements()
	if err != nil {
		return nil, false
	}
	for _, e := range els {
		if e.Key() != "$and" {
			out = append(out, bsoncore.NewDocumentBuilder().AppendValue(e.Key(), e.Value()).Build())
			continue
		}
		arr, ok := e.Value().ArrayOK()
		if !ok {
			return nil, false
		}
		vals, _ := arr.Values()
		if len(vals) == 0 {
			return nil, false
		}
		for _, x := range vals {
			sub, ok := x.DocumentOK()
			if !ok {
				return nil, false
			}
			if out, ok = clauses(sub, out); !ok {
				return nil, false
			}
		}
	}
	return out, true
}

// absorbMatch splits the filter of a $match after the unpack: the meta
// clauses go before it renamed, the rest becomes the eventFilter with
// the bucket-level predicates of its time clauses before the unpack.
func (r *unpackRewrite) absorbMatch(f bsoncore.Document) bool {
	if r.pc.Expr != nil && r.pc.Expr.NumSlots() > 0 && bytes.Contains(f, []byte("$expr\x00")) {
		// $expr with the command's variables is the $match stage's to
		// evaluate (match.go); the unpack's eventFilter has no
		// variables.
		return false
	}
	cs, ok := clauses(f, nil)
	if !ok {
		return false
	}
	var meta, loose, event, tight []bsoncore.Document
	tightOK := true
	for _, c := range cs {
		el, _ := c.IndexErr(0)
		k, v := el.Key(), el.Value()
		if m, ok := r.renameMetaClause(k, v); ok {
			meta = append(meta, m)
			continue
		}
		event = append(event, c)
		if k != r.spec.timeField {
			tightOK = false
			if !strings.HasPrefix(k, "$") {
				loose = append(loose, r.fieldPredicates(k, v)...)
			} else if k == "$or" {
				if l, ok := r.looseOr(v); ok {
					loose = append(loose, l)
				}
			}
			continue
		}
		l, t, ok := r.timePredicates(v)
		loose = append(loose, l...)
		if ok {
			tight = append(tight, t...)
		} else {
			tightOK = false
		}
	}
	if bucket := append(meta, loose...); len(bucket) > 0 {
		r.before = append(r.before, specDoc("$match", docValue(andOf(bucket))))
	}
	if len(event) > 0 {
		r.spec.eventFilter = andOf(event)
		if tightOK && len(tight) > 0 {
			r.spec.wholeBucketFilter = andOf(tight)
		}
	}
	return true
}

// looseOr returns the bucket-level predicate of a $or: the $or of each
// branch's, when every branch has one (a branch without one could match
// in any bucket).
func (r *unpackRewrite) looseOr(v bsoncore.Value) (bsoncore.Document, bool) {
	return mapBranches("$or", v, r.looseOf)
}

// mapBranches returns {op: [f(branch)...]} for the branches of a logical
// operator's array v, false when v is not a non-empty array of
// documents or f has no answer for a branch.
func mapBranches(op string, v bsoncore.Value, f func(bsoncore.Document) (bsoncore.Document, bool)) (bsoncore.Document, bool) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, false
	}
	vals, _ := arr.Values()
	if len(vals) == 0 {
		return nil, false
	}
	ab := bsoncore.NewArrayBuilder()
	for _, x := range vals {
		sub, ok := x.DocumentOK()
		if !ok {
			return nil, false
		}
		d, ok := f(sub)
		if !ok {
			return nil, false
		}
		ab.AppendDocument(d)
	}
	return bsoncore.NewDocumentBuilder().AppendArray(op, ab.Build()).Build(), true
}

// looseOf returns the bucket-level predicate of a filter: the
// conjunction of its clauses' (meta clauses renamed), false when it has
// none.
func (r *unpackRewrite) looseOf(f bsoncore.Document) (bsoncore.Document, bool) {
	cs, ok := clauses(f, nil)
	if !ok {
		return nil, false
	}
	var loose []bsoncore.Document
	for _, c := range cs {
		el, _ := c.IndexErr(0)
		k, v := el.Key(), el.Value()
		switch {
		case k == r.spec.timeField:
			l, _, _ := r.timePredicates(v)
			loose = append(loose, l...)
		case k == "$or":
			if l, ok := r.looseOr(v); ok {
				loose = append(loose, l)
			}
		case strings.HasPrefix(k, "$"):
		default:
			if m, ok := r.renameMetaClause(k, v); ok {
				loose = append(loose, m)
			} else {
				loose = append(loose, r.fieldPredicates(k, v)...)
			}
		}
	}
	if len(loose) == 0 {
		return nil, false
	}
	return andOf(loose), true
}

// isMetaPath reports whether path is the meta field or under it, and
// returns it renamed onto the bucket's meta.
func (r *unpackRewrite) isMetaPath(path string) (string, bool) {
	if !r.spec.hasMeta {
		return "", false
	}
	m := r.spec.metaField
	if path == m {
		return bucketMeta, true
	}
	if strings.HasPrefix(path, m+".") {
		return bucketMeta + path[len(m):], true
	}
	return "", false
}

// renameMetaClause returns the clause k: v renamed onto the bucket when
// it reads only the meta field: a predicate on it, or a $or/$nor/$and
// whose every branch does.
func (r *unpackRewrite) renameMetaClause(k string, v bsoncore.Value) (bsoncore.Document, bool) {
	if p, ok := r.isMetaPath(k); ok {
		return bsoncore.NewDocumentBuilder().AppendValue(p, v).Build(), true
	}
	if k != "$or" && k != "$nor" && k != "$and" {
		return nil, false
	}
	return mapBranches(k, v, func(sub bsoncore.Document) (bsoncore.Document, bool) {
		els, err := sub.Elements()
		if err != nil || len(els) == 0 {
			return nil, false
		}
		b := bsoncore.NewDocumentBuilder()
		for _, e := range els {
			m, ok := r.renameMetaClause(e.Key(), e.Value())
			if !ok {
				return nil, false
			}
			me, _ := m.IndexErr(0)
			b.AppendValue(me.Key(), me.Value())
		}
		return b.Build(), true
	})
}

// timePredicates returns the bucket-level predicates of a clause on the
// time field: loose ones that every bucket holding a matching
// measurement meets, and tight ones that only buckets whose every
// measurement matches meet (ok false when there are none).
func (r *unpackRewrite) timePredicates(v bsoncore.Value) (loose, tight []bsoncore.Document, ok bool) {
	type cmp struct {
		op string
		ms int64
	}
	var ops []cmp
	ok = true
	if v.Type == bsoncore.TypeDateTime {
		ops = append(ops, cmp{"$eq", v.DateTime()})
	} else if d, isDoc := v.DocumentOK(); isDoc && isExprDoc(d) {
		els, _ := d.Elements()
		for _, e := range els {
			switch e.Key() {
			case "$eq", "$gt", "$gte", "$lt", "$lte":
				if e.Value().Type == bsoncore.TypeDateTime {
					ops = append(ops, cmp{e.Key(), e.Value().DateTime()})
					continue
				}
			}
			ok = false
		}
	} else {
		return nil, nil, false
	}
	cmin := "control.min." + r.spec.timeField
	cmax := "control.max." + r.spec.timeField
	span := r.bucketSpan()
	pred := func(path, op string, v bsoncore.Value) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendDocument(path, bsoncore.NewDocumentBuilder().AppendValue(op, v).Build()).Build()
	}
	date := func(ms int64) bsoncore.Value { return expr.Date(ms) }
	for _, c := range ops {
		x := date(c.ms)
		switch c.op {
		case "$eq":
			tight = append(tight, pred(cmin, "$eq", x), pred(cmax, "$eq", x))
		case "$gt", "$gte":
			tight = append(tight, pred(cmin, c.op, x))
		case "$lt", "$lte":
			tight = append(tight, pred(cmax, c.op, x))
		}
		if c.ms < 0 || c.ms > math.MaxUint32*1000 {
			// Outside the ObjectId's range: no bucket-level bound.
			continue
		}
		idOK := !r.spec.usesExtendedRange
		switch c.op {
		case "$eq":
			loose = append(loose, pred(cmin, "$lte", x), pred(cmin, "$gte", date(c.ms-span)),
				pred(cmax, "$gte", x), pred(cmax, "$lte", date(c.ms+span)))
			if idOK {
				loose = append(loose, pred("_id", "$lte", bucketOID(c.ms, true, true)), pred("_id", "$gte", spanOID(c.ms, span, false)))
			}
		case "$gt", "$gte":
			loose = append(loose, pred(cmax, c.op, x), pred(cmin, c.op, date(c.ms-span)))
			if idOK {
				loose = append(loose, pred("_id", c.op, spanOID(c.ms, span, c.op == "$gt")))
			}
		case "$lt", "$lte":
			loose = append(loose, pred(cmin, c.op, x), pred(cmax, c.op, date(c.ms+span)))
			if idOK {
				loose = append(loose, pred("_id", c.op, bucketOID(c.ms, c.op == "$lte", true)))
			}
		}
	}
	return loose, tight, ok && len(tight) > 0
}

// fieldPredicates returns the bucket-level predicates of a clause on a
// measurement field other than the time field, as mongod's: for each
// comparison of a scalar, the bucket's control.min/control.max of the
// field must allow it, or (unless assumeNoMixedSchemaData) the types of
// its control.min and control.max differ along the path, when they say
// nothing of the values between.
func (r *unpackRewrite) fieldPredicates(path string, v bsoncore.Value) []bsoncore.Document {
	type cmp struct {
		op string
		v  bsoncore.Value
	}
	var ops []cmp
	if d, isDoc := v.DocumentOK(); isDoc && isExprDoc(d) {
		els, _ := d.Elements()
		for _, e := range els {
			switch e.Key() {
			case "$eq", "$gt", "$gte", "$lt", "$lte":
				ops = append(ops, cmp{e.Key(), e.Value()})
			}
		}
	} else {
		ops = append(ops, cmp{"$eq", v})
	}
	cmin, cmax := "control.min."+path, "control.max."+path
	pred := func(path, op string, v bsoncore.Value) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendDocument(path, bsoncore.NewDocumentBuilder().AppendValue(op, v).Build()).Build()
	}
	var out []bsoncore.Document
	for _, c := range ops {
		switch c.v.Type {
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray, bsoncore.TypeNull, bsoncore.TypeUndefined,
			bsoncore.TypeRegex, bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
			// Compound operands compare field order where control
			// min/max do not; null matches missing; a regex is no
			// comparison.
			continue
		case bsoncore.TypeString, bsoncore.TypeSymbol:
			if r.pc.Collation != nil && !isSimpleCollation(r.pc.Collation) {
				continue // min/max follow the collection's collation
			}
		}
		var p bsoncore.Document
		switch c.op {
		case "$eq":
			p = andOf([]bsoncore.Document{pred(cmin, "$lte", c.v), pred(cmax, "$gte", c.v)})
		case "$gt", "$gte":
			p = pred(cmax, c.op, c.v)
		default:
			p = pred(cmin, c.op, c.v)
		}
		if !r.spec.assumeNoMixed {
			ab := bsoncore.NewArrayBuilder().AppendDocument(p)
			parts := strings.Split(path, ".")
			for i := range parts {
				sub := strings.Join(parts[:i+1], ".")
				ne := bsoncore.NewArrayBuilder().
					AppendDocument(bsoncore.NewDocumentBuilder().AppendString("$type", "$control.min."+sub).Build()).
					AppendDocument(bsoncore.NewDocumentBuilder().AppendString("$type", "$control.max."+sub).Build()).Build()
				ab.AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument("$expr",
					bsoncore.NewDocumentBuilder().AppendArray("$ne", ne).Build()).Build())
			}
			p = bsoncore.NewDocumentBuilder().AppendArray("$or", ab.Build()).Build()
		}
		out = append(out, p)
	}
	return out
}

// bucketOID is the smallest (or, max, the largest) ObjectId of the second
// of ms, rounded up to the next second when roundUp and ms is not whole.
func bucketOID(ms int64, max, roundUp bool) bsoncore.Value {
	if roundUp && ms%1000 != 0 {
		ms += 1000
	}
	var oid bson.ObjectID
	binary.BigEndian.PutUint32(oid[:4], uint32(ms/1000))
	if max {
		for i := 4; i < 12; i++ {
			oid[i] = 0xff
		}
	}
	return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: oid[:]}
}

// bucketSpan is how far, in milliseconds, a bucket's last measurement
// may be from its _id time and its control.min: the widest bucket the
// collection has held when the engine knows it (engine.BucketSpan),
// bucketMaxSpanSeconds otherwise.
func (r *unpackRewrite) bucketSpan() int64 {
	if r.pc != nil && r.pc.BucketSpan != nil {
		if ms, ok := r.pc.BucketSpan(r.pc.DB, r.pc.Coll, r.spec.timeField); ok {
			return ms
		}
	}
	return int64(r.spec.maxSpan) * 1000
}

// spanOID is bucketOID of ms less the bucket span, or the smallest
// ObjectId of the epoch when that would fall before it.
func spanOID(ms, span int64, max bool) bsoncore.Value {
	if ms >= span {
		return bucketOID(ms-span, max, false)
	}
	return bucketOID(0, false, false)
}

// metaSort returns a sort on the meta field only, renamed onto the
// bucket's meta.
func (r *unpackRewrite) metaSort(v bsoncore.Value) (bsoncore.Document, bool) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, false
	}
	els, err := d.Elements()
	if err != nil || len(els) == 0 {
		return nil, false
	}
	b := bsoncore.NewDocumentBuilder()
	for _, e := range els {
		p, ok := r.isMetaPath(e.Key())
		if !ok || e.Value().Type == bsoncore.TypeEmbeddedDocument {
			return nil, false
		}
		b.AppendValue(p, e.Value())
	}
	return b.Build(), true
}

// timeSort turns a $sort on the time field alone (and a $limit after it)
// into a read of the buckets in _id order (a clustered collection's
// scan order) and a $_internalBoundedSort after the unpack
// (unpackbucket_sort.go): it returns the stages that replace the first n
// of rest. Not when the buckets may hold dates outside the ObjectId's
// range (their _id does not follow their time), the command has a hint,
// or something already sorts or limits the buckets.
func (r *unpackRewrite) timeSort(rest []bsoncore.Document) ([]bsoncore.Document, int, bool) {
	if r.spec.usesExtendedRange || r.pc.Hint.Type != 0 {
		return nil, 0, false
	}
	for _, b := range r.before {
		if name, _, _ := rawStage(b); name != "$match" {
			return nil, 0, false
		}
	}
	_, v, _ := rawStage(rest[0])
	sd, ok := v.DocumentOK()
	if !ok {
		return nil, 0, false
	}
	els, err := sd.Elements()
	if err != nil || len(els) != 1 || els[0].Key() != r.spec.timeField || !bsonutil.IsNumber(els[0].Value().Type) {
		return nil, 0, false
	}
	dir := int32(1)
	switch f := bsonutil.AsFloat64(els[0].Value()); f {
	case 1:
	case -1:
		dir = -1
	default:
		return nil, 0, false
	}
	n := 1
	var limit int64
	if len(rest) > 1 {
		if name, lv, _ := rawStage(rest[1]); name == "$limit" && bsonutil.IsNumber(lv.Type) {
			if l := bsonutil.AsFloat64(lv); l >= 1 && l == float64(int64(l)) {
				limit, n = int64(l), 2
			}
		}
	}
	// The buckets in _id order: the buckets query is a scan of the
	// clustered collection in that direction (a {$natural: dir} hint,
	// bounded by the _id predicates), never an index scan and a blocking
	// sort of whole buckets.
	r.pc.Hint = docValue(bsoncore.NewDocumentBuilder().AppendInt32("$natural", dir).Build())
	// Ascending, no later measurement is before the bucket's
	// control.min; descending, none is at or after control.min plus the
	// span.
	offset := int64(0)
	if dir == -1 {
		offset = int64(r.spec.maxSpan)
	}
	b := bsoncore.NewDocumentBuilder().
		AppendDocument("sortKey", bsoncore.NewDocumentBuilder().AppendInt32(r.spec.timeField, dir).Build()).
		AppendDocument("bound", bsoncore.NewDocumentBuilder().AppendString("base", "min").AppendInt64("offsetSeconds", offset).Build())
	if limit > 0 {
		b.AppendInt64("limit", limit)
	}
	return []bsoncore.Document{specDoc("$_internalBoundedSort", docValue(b.Build()))}, n, true
}

// lastpoint returns the bucket-level $sort and $group of a "lastpoint"
// query, mongod's rewrite of a $sort on the meta field and then the
// time field followed by a $group by that meta path whose accumulators
// are all $first (time descending) or all $last (time ascending): the
// buckets sorted the same way by meta, control.max and control.min of
// the time field, and the first bucket of each meta value kept, so that
// only it is unpacked. The original $sort and $group stay after the
// unpack.
func (r *unpackRewrite) lastpoint(rest []bsoncore.Document) ([]bsoncore.Document, bool) {
	if len(rest) < 2 {
		return nil, false
	}
	_, sv, _ := rawStage(rest[0])
	gname, gv, _ := rawStage(rest[1])
	sd, ok1 := sv.DocumentOK()
	gd, ok2 := gv.DocumentOK()
	if gname != "$group" || !ok1 || !ok2 {
		return nil, false
	}
	id, err := gd.LookupErr("_id")
	if err != nil {
		return nil, false
	}
	ids, ok := id.StringValueOK()
	if !ok || !strings.HasPrefix(ids, "$") || strings.HasPrefix(ids, "$$") {
		return nil, false
	}
	groupPath := ids[1:]
	metaPath, ok := r.isMetaPath(groupPath)
	if !ok {
		return nil, false
	}
	// The accumulators: all $first or all $last.
	acc := ""
	gels, _ := gd.Elements()
	for _, e := range gels {
		if e.Key() == "_id" {
			continue
		}
		a, ok := e.Value().DocumentOK()
		if !ok {
			return nil, false
		}
		aels, _ := a.Elements()
		if len(aels) != 1 || (aels[0].Key() != "$first" && aels[0].Key() != "$last") || (acc != "" && acc != aels[0].Key()) {
			return nil, false
		}
		acc = aels[0].Key()
	}
	if acc == "" {
		return nil, false
	}
	// The sort: the group's meta path, then the time field last; the
	// time must run against the accumulator (latest first for $first).
	sels, err := sd.Elements()
	if err != nil || len(sels) < 2 {
		return nil, false
	}
	dir := func(v bsoncore.Value) (int32, bool) {
		if !bsonutil.IsNumber(v.Type) {
			return 0, false
		}
		switch f := bsonutil.AsFloat64(v); f {
		case 1, -1:
			return int32(f), true
		}
		return 0, false
	}
	last := sels[len(sels)-1]
	timeDir, ok := dir(last.Value())
	if !ok || last.Key() != r.spec.timeField || (acc == "$first") == (timeDir == 1) {
		return nil, false
	}
	metaDir := int32(0)
	for _, e := range sels[:len(sels)-1] {
		d, ok := dir(e.Value())
		if !ok || e.Key() != groupPath {
			return nil, false
		}
		metaDir = d
	}
	if acc == "$last" {
		// The buckets are sorted the other way round, so that the
		// group's $first bucket is the one the $last measurement is in.
		timeDir, metaDir = -timeDir, -metaDir
	}
	first, second := "control.max.", "control.min."
	if timeDir == 1 {
		first, second = second, first
	}
	sort := bsoncore.NewDocumentBuilder().AppendInt32(metaPath, metaDir).
		AppendInt32(first+r.spec.timeField, timeDir).AppendInt32(second+r.spec.timeField, timeDir).Build()
	firstOf := func(f string) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendString("$first", "$"+f).Build()
	}
	group := bsoncore.NewDocumentBuilder().AppendString("_id", "$"+metaPath).
		AppendDocument(bucketMeta, firstOf(bucketMeta)).AppendDocument(bucketControl, firstOf(bucketControl)).
		AppendDocument(bucketData, firstOf(bucketData)).Build()
	return []bsoncore.Document{specDoc("$sort", docValue(sort)), specDoc("$group", docValue(group))}, true
}

// bucketGroup returns the stages that answer a $group (or $count) from the
// buckets without unpacking them, when its _id reads only the meta field
// and its accumulators are $min and $max of field paths and counts.
func (r *unpackRewrite) bucketGroup(name string, v bsoncore.Value) ([]bsoncore.Document, bool) {
	if r.pc.Collation != nil && !isSimpleCollation(r.pc.Collation) {
		// control.min/max were computed under the collection's collation.
		return nil, false
	}
	count := r.countExpr()
	if name == "$count" {
		f, ok := v.StringValueOK()
		if !ok || f == "" || strings.HasPrefix(f, "$") || strings.Contains(f, ".") {
			return nil, false // $count reports it
		}
		g := bsoncore.NewDocumentBuilder().AppendNull("_id").
			AppendDocument(f, bsoncore.NewDocumentBuilder().AppendDocument("$sum", count).Build()).Build()
		return []bsoncore.Document{
			specDoc("$group", docValue(g)),
			specDoc("$project", docValue(bsoncore.NewDocumentBuilder().AppendInt32("_id", 0).Build())),
		}, true
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil, false
	}
	els, err := d.Elements()
	if err != nil {
		return nil, false
	}
	b := bsoncore.NewDocumentBuilder()
	hasID := false
	for _, e := range els {
		k, ev := e.Key(), e.Value()
		if k == "_id" {
			id, ok := r.renameMetaExpr(ev)
			if !ok {
				return nil, false
			}
			b.AppendValue("_id", id)
			hasID = true
			continue
		}
		acc, ok := ev.DocumentOK()
		if !ok {
			return nil, false
		}
		aels, _ := acc.Elements()
		if len(aels) != 1 {
			return nil, false
		}
		op, arg := aels[0].Key(), aels[0].Value()
		var nv bsoncore.Value
		switch op {
		case "$min", "$max":
			p, ok := r.controlPath(op, arg)
			if !ok {
				return nil, false
			}
			nv = expr.String(p)
		case "$sum":
			if !isOne(arg) {
				return nil, false
			}
			op, nv = "$sum", docValue(count)
		case "$count":
			if a, ok := arg.DocumentOK(); !ok || len(a) != 5 {
				return nil, false
			}
			op, nv = "$sum", docValue(count)
		default:
			return nil, false
		}
		b.AppendDocument(k, bsoncore.NewDocumentBuilder().AppendValue(op, nv).Build())
	}
	if !hasID {
		return nil, false
	}
	return []bsoncore.Document{specDoc("$group", docValue(b.Build()))}, true
}

// countExpr counts a bucket's measurements: control.count of a
// compressed bucket, the entries of the time column of another.
func (r *unpackRewrite) countExpr() bsoncore.Document {
	ver := bsoncore.NewArrayBuilder().AppendString("$control.version").AppendInt32(2).Build()
	size := bsoncore.NewDocumentBuilder().AppendDocument("$size",
		bsoncore.NewDocumentBuilder().AppendString("$objectToArray", "$data."+r.spec.timeField).Build()).Build()
	cond := bsoncore.NewArrayBuilder().
		AppendDocument(bsoncore.NewDocumentBuilder().AppendArray("$gte", ver).Build()).
		AppendString("$control.count").
		AppendDocument(size).Build()
	return bsoncore.NewDocumentBuilder().AppendArray("$cond", cond).Build()
}

// isOne: the constant 1 ($sum: 1 counts).
func isOne(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeInt32:
		return v.Int32() == 1
	case bsoncore.TypeInt64:
		return v.Int64() == 1
	case bsoncore.TypeDouble:
		return v.Double() == 1
	}
	return false
}

// controlPath is the bucket-level path of $min or $max of a field path:
// under meta for the meta field, control.min/control.max for the others
// (not $min of the time field, whose control.min is rounded down).
func (r *unpackRewrite) controlPath(op string, arg bsoncore.Value) (string, bool) {
	s, ok := arg.StringValueOK()
	if !ok || !strings.HasPrefix(s, "$") || strings.HasPrefix(s, "$$") || len(s) < 2 {
		return "", false
	}
	path := s[1:]
	if p, ok := r.isMetaPath(path); ok {
		return "$" + p, true
	}
	top, _, _ := strings.Cut(path, ".")
	if top == r.spec.timeField && (op == "$min" || r.spec.usesExtendedRange) {
		return "", false
	}
	if op == "$min" {
		return "$control.min." + path, true
	}
	return "$control.max." + path, true
}

// renameMetaExpr returns a group key expression with its field paths
// renamed onto the bucket's meta, when it reads nothing else (a constant
// qualifies).
func (r *unpackRewrite) renameMetaExpr(v bsoncore.Value) (bsoncore.Value, bool) {
	switch v.Type {
	case bsoncore.TypeString:
		s := v.StringValue()
		if strings.HasPrefix(s, "$$") {
			return v, false
		}
		if strings.HasPrefix(s, "$") {
			p, ok := r.isMetaPath(s[1:])
			if !ok {
				return v, false
			}
			return expr.String("$" + p), true
		}
		return v, true
	case bsoncore.TypeEmbeddedDocument:
		els, err := v.Document().Elements()
		if err != nil {
			return v, false
		}
		b := bsoncore.NewDocumentBuilder()
		for _, e := range els {
			if e.Key() == "$literal" {
				return v, false
			}
			nv, ok := r.renameMetaExpr(e.Value())
			if !ok {
				return v, false
			}
			b.AppendValue(e.Key(), nv)
		}
		return docValue(b.Build()), true
	case bsoncore.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return v, false
		}
		ab := bsoncore.NewArrayBuilder()
		for _, x := range vals {
			nv, ok := r.renameMetaExpr(x)
			if !ok {
				return v, false
			}
			ab.AppendValue(nv)
		}
		return bsoncore.Value{Type: bsoncore.TypeArray, Data: ab.Build()}, true
	}
	return v, true
}

// isSimpleCollation: {locale: "simple"}.
func isSimpleCollation(d bsoncore.Document) bool {
	v, err := d.LookupErr("locale")
	return err == nil && v.Type == bsoncore.TypeString && v.StringValue() == "simple"
}
