package agg

import (
	"github.com/lodedb/lode/internal/collation"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg/accum"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$group", stageDef{parse: parseGroup, access: noAccess, sources: noSources, where: anywhere, explain: groupExplain, shape: shapeExpr})
}

// groupExplain appends the execution figures of $group and $bucket.
func groupExplain(b *bsoncore.DocumentBuilder, st *stageStats, _ int64) {
	sp := st.spill
	b.AppendInt64("totalOutputDataSizeBytes", st.bytes).
		AppendBoolean("usedDisk", sp.runs > 0).
		AppendInt64("spills", sp.runs).
		AppendInt64("spilledDataStorageSize", sp.bytes).
		AppendInt64("numBytesSpilledEstimate", sp.bytes).
		AppendInt64("spilledRecords", sp.records)
}

// groupOverhead approximates the bytes a group costs beyond its key and
// accumulator states.
const groupOverhead = 96

// groupStage is $group.
type groupStage struct {
	raw     bsoncore.Value
	id      expr.Expr
	idConst bool
	idValue bsoncore.Value
	fields  []string
	ops     []string         // accumulator names
	args    []bsoncore.Value // accumulator arguments
	facs    []*accum.Factory
	// stageName is "$group" or the user-facing stage it implements.
	stageName string
	// keyFn, when set, computes the group key instead of id ($bucket).
	keyFn func(d bsoncore.Document, vars *expr.Vars) (bsoncore.Value, error)
	// pre, when not nil, are the computed fields of the stage folded into
	// this one (fuse.go), evaluated on each input first.
	pre []preField
	// idNames and idExprs are the fields of an object literal _id, whose
	// key is hashed from its fields' encodings (groupkey.go).
	idNames []string
	idExprs []expr.Expr
	// coll, when not nil, is the pipeline's collation: keys whose
	// strings are equal under it are one group (groupkey.go).
	coll *collation.Collator
}

// takesFused reports whether the stage before g may be folded into it
// (fuse.go): a $group of its own (not one a $bucket or $sortByCount
// runs) that no stage was folded into yet.
func (g *groupStage) takesFused() bool {
	return g.stageName == "$group" && g.keyFn == nil && g.pre == nil
}

func parseGroup(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	g, err := newGroup(v, pc)
	if err != nil {
		return nil, err
	}
	return []stage{g}, nil
}

func newGroup(v bsoncore.Value, pc *ParseContext) (*groupStage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location15947, "a group's fields must be specified in an object")
	}
	g := &groupStage{raw: v, stageName: "$group", coll: pc.Collator}
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $group: %v", err)
	}
	hasID := false
	for _, el := range elems {
		k, val := el.Key(), el.Value()
		if k == "_id" {
			if hasID {
				return nil, errs.New(errs.Location16984, "_id cannot be specified twice in $group")
			}
			hasID = true
			e, err := expr.Parse(val, pc.Expr)
			if err != nil {
				return nil, err
			}
			g.id = e
			g.idValue, g.idConst = expr.IsConst(e)
			continue
		}
		if strings.HasPrefix(k, "$") {
			return nil, errs.New(errs.Location40236, "The field name '%s' cannot be an operator name", k)
		}
		if strings.Contains(k, ".") {
			return nil, errs.New(errs.Location40235, "The field name '%s' cannot contain '.'", k)
		}
		ad, ok := val.DocumentOK()
		if !ok {
			return nil, errs.New(errs.Location40234, "The field '%s' must be an accumulator object", k)
		}
		aels, _ := ad.Elements()
		if len(aels) != 1 {
			return nil, errs.New(errs.Location40238, "The field '%s' must specify one accumulator", k)
		}
		op := aels[0].Key()
		f, err := accum.New(op, aels[0].Value(), pc.Expr)
		if err != nil {
			return nil, err
		}
		switch op {
		case "$push":
			f.MaxBytes = pc.params().MaxPushBytes.Load()
		case "$addToSet":
			f.MaxBytes = pc.params().MaxAddToSetBytes.Load()
		}
		g.fields = append(g.fields, k)
		g.ops = append(g.ops, op)
		g.args = append(g.args, aels[0].Value())
		g.facs = append(g.facs, f)
	}
	if !hasID {
		return nil, errs.New(errs.Location15955, "a group specification must include an _id")
	}
	if g.idConst && expr.IsMissing(g.idValue) {
		g.idValue = expr.Null
	}
	if !g.idConst {
		g.idNames, g.idExprs, _ = expr.ObjectFields(g.id)
	}
	return g, nil
}

func (g *groupStage) name() string            { return "$group" }
func (g *groupStage) spec() bsoncore.Document { return specDoc("$group", g.raw) }

// group is the state of one group.
type group struct {
	key  bsoncore.Value
	accs []accum.Accumulator
}

// groupKeyDoc is the document 'n' arguments are evaluated against, as
// mongod's group does: the group key itself when it is a document (so
// "$gameId" reads the key's gameId field), an empty document otherwise.
func groupKeyDoc(key bsoncore.Value) bsoncore.Document {
	if key.Type == bsoncore.TypeEmbeddedDocument {
		return key.Document()
	}
	return bsoncore.Document{5, 0, 0, 0, 0}
}

func copyValue(v bsoncore.Value) bsoncore.Value {
	return bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
}

func (g *groupStage) newGroup(key bsoncore.Value, vars *expr.Vars) (*group, int64, error) {
	gr := &group{key: copyValue(key), accs: make([]accum.Accumulator, len(g.facs))}
	kd := groupKeyDoc(gr.key)
	mem := int64(len(key.Data)) + groupOverhead
	for i, f := range g.facs {
		a, err := f.NewAccumulator(kd, vars)
		if err != nil {
			return nil, 0, err
		}
		gr.accs[i] = a
		mem += int64(a.MemUsage())
	}
	return gr, mem, nil
}

// add folds one document into gr and returns the change in memory.
func (g *groupStage) add(gr *group, d bsoncore.Document, vars *expr.Vars) (int64, error) {
	var delta int64
	for i, f := range g.facs {
		v, err := f.Input(d, vars)
		if err != nil {
			return 0, err
		}
		a := gr.accs[i]
		before := a.MemUsage()
		if err := a.Add(v); err != nil {
			return 0, err
		}
		delta += int64(a.MemUsage() - before)
	}
	return delta, nil
}

// result renders a finished group.
func (g *groupStage) result(gr *group) (bsoncore.Document, error) {
	idx, out := bsoncore.AppendDocumentStart(nil)
	out = bsoncore.AppendValueElement(out, "_id", gr.key)
	for i, a := range gr.accs {
		v, err := a.Result()
		if err != nil {
			return nil, err
		}
		if expr.IsMissing(v) {
			v = expr.Null
		}
		out = bsoncore.AppendValueElement(out, g.fields[i], v)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out, nil
}

func (g *groupStage) key(d bsoncore.Document, vars *expr.Vars) (bsoncore.Value, error) {
	if g.keyFn != nil {
		return g.keyFn(d, vars)
	}
	if g.idConst {
		return g.idValue, nil
	}
	k, err := g.id.Eval(d, vars)
	if err != nil {
		return bsoncore.Value{}, err
	}
	if expr.IsMissing(k) {
		k = expr.Null
	}
	return k, nil
}

func (g *groupStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	var out Iterator
	started := false
	sp := rc.newSpiller()
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if !started {
				started = true
				var err error
				if out, err = g.consume(rc, in, sp); err != nil {
					return nil, err
				}
			}
			return out.Next()
		},
		close: func() error { sp.close(); return in.Close() },
	}, nil
}

// consume groups the whole input. Groups live in memory until their
// estimated size passes the memory limit; then, when disk use is allowed,
// every group in memory is written as its partial accumulator states to a
// run sorted by group key, and grouping starts again with an empty table.
// At the end the runs (and the groups still in memory) are merged by key
// and the partial states of each key are folded together, in the order
// they were written, so $first, $last and $push see their inputs in
// arrival order.
func (g *groupStage) consume(rc *runCtx, in Iterator, sp *spiller) (Iterator, error) {
	w := g.newWorker(rc, rc.vars, sp, nil)
	if err := w.run(in); err != nil {
		return nil, err
	}
	t := w.t
	if len(sp.runs) == 0 {
		return t.iter(g), nil
	}
	// Merge the runs with what is still in memory (the newest run).
	recs, err := g.partialRecords(t)
	if err != nil {
		return nil, err
	}
	t.reset()
	return g.mergeRuns(rc, sp, recs), nil
}

// mergeRuns returns the groups of sp's runs and of recs (sorted partial
// records), each key's partial states folded in run order.
func (g *groupStage) mergeRuns(rc *runCtx, sp *spiller, recs [][]byte) Iterator {
	var m *merger
	return &funcIter{next: func() (bsoncore.Document, error) {
		if m == nil {
			var err error
			if m, err = sp.merge(recs, compareSpillRecords); err != nil {
				return nil, err
			}
			recs = nil
		}
		return g.nextSpilled(m, rc.vars)
	}}
}

// countPlan answers a $group with a constant _id whose accumulators are
// $count or a constant $sum from the catalog's count.
func (s *groupStage) countPlan() *countPlan {
	if !s.idConst {
		return nil
	}
	cp := &countPlan{st: s, id: s.idValue, fields: s.fields}
	for i, op := range s.ops {
		a := s.args[i]
		switch {
		case op == "$count":
			cp.mults = append(cp.mults, bsoncore.Value{})
		case op == "$sum" && (a.Type == bsoncore.TypeInt32 || a.Type == bsoncore.TypeInt64 || a.Type == bsoncore.TypeDouble):
			cp.mults = append(cp.mults, a)
		default:
			return nil
		}
	}
	return cp
}
