package agg

import (
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/agg/accum"
	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/expr"
	"github.com/lodedb/lode/keystring"
)

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
		return nil, errs.New(errs.Code(15947), "a group's fields must be specified in an object")
	}
	g := &groupStage{raw: v, stageName: "$group"}
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $group: %v", err)
	}
	hasID := false
	for _, el := range elems {
		k, val := el.Key(), el.Value()
		if k == "_id" {
			if hasID {
				return nil, errs.New(errs.Code(16984), "_id cannot be specified twice in $group")
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
			return nil, errs.New(errs.Code(40236), "The field name '%s' cannot be an operator name", k)
		}
		if strings.Contains(k, ".") {
			return nil, errs.New(errs.Code(40235), "The field name '%s' cannot contain '.'", k)
		}
		ad, ok := val.DocumentOK()
		if !ok {
			return nil, errs.New(errs.Code(40234), "The field '%s' must be an accumulator object", k)
		}
		aels, _ := ad.Elements()
		if len(aels) != 1 {
			return nil, errs.New(errs.Code(40238), "The field '%s' must specify one accumulator", k)
		}
		op := aels[0].Key()
		f, err := accum.New(op, aels[0].Value(), pc.Expr)
		if err != nil {
			return nil, err
		}
		g.fields = append(g.fields, k)
		g.ops = append(g.ops, op)
		g.args = append(g.args, aels[0].Value())
		g.facs = append(g.facs, f)
	}
	if !hasID {
		return nil, errs.New(errs.Code(15955), "a group specification must include an _id")
	}
	if g.idConst && expr.IsMissing(g.idValue) {
		g.idValue = expr.Null
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

// groupKeyDoc renders {_id: key}, the document 'n' arguments see.
func groupKeyDoc(key bsoncore.Value) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendValue("_id", key).Build()
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
	sp := &spiller{dir: rc.pc.tempDir()}
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

// consume groups the whole input. Groups live in memory until the memory
// limit is reached; then, when disk use is allowed, the groups already in
// memory stay there (and keep receiving their documents) while documents
// of new keys are written, with their evaluated accumulator inputs, to
// sorted runs that are merged and folded group by group at the end.
func (g *groupStage) consume(rc *runCtx, in Iterator, sp *spiller) (Iterator, error) {
	limit := rc.pc.memLimit()
	groups := map[string]*group{}
	var order []*group
	var mem int64
	spilling := false
	var pending [][]byte
	var pmem int64
	var seq uint64
	var ks []byte
	var single *group
	for n := 0; ; n++ {
		d, err := in.Next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			break
		}
		if n&1023 == 0 {
			if err := rc.ctx.Err(); err != nil {
				return nil, err
			}
		}
		if g.idConst && g.keyFn == nil {
			if single == nil {
				gr, m, err := g.newGroup(g.idValue, rc.vars)
				if err != nil {
					return nil, err
				}
				single, mem = gr, m
				order = append(order, gr)
			}
			dm, err := g.add(single, d, rc.vars)
			if err != nil {
				return nil, err
			}
			mem += dm
			if mem > limit && !rc.pc.AllowDiskUse {
				return nil, memoryError("$group", limit)
			}
			continue
		}
		key, err := g.key(d, rc.vars)
		if err != nil {
			return nil, err
		}
		ks = keystring.AppendValue(ks[:0], key, false)
		gr := groups[string(ks)]
		if gr == nil {
			if spilling {
				rec, err := g.spillRecord(ks, seq, key, d, rc.vars)
				if err != nil {
					return nil, err
				}
				seq++
				pending = append(pending, rec)
				pmem += int64(len(rec)) + 32
				if pmem > limit/2 {
					sortRecords(pending)
					if err := sp.writeRun(pending); err != nil {
						return nil, err
					}
					pending, pmem = nil, 0
				}
				continue
			}
			var m int64
			gr, m, err = g.newGroup(key, rc.vars)
			if err != nil {
				return nil, err
			}
			groups[string(ks)] = gr
			order = append(order, gr)
			mem += m + int64(len(ks))
		}
		dm, err := g.add(gr, d, rc.vars)
		if err != nil {
			return nil, err
		}
		mem += dm
		if mem > limit && !spilling {
			if !rc.pc.AllowDiskUse {
				return nil, memoryError("$group", limit)
			}
			spilling = true
		}
	}
	i := 0
	var m *merger
	return &funcIter{next: func() (bsoncore.Document, error) {
		if i < len(order) {
			gr := order[i]
			order[i] = nil
			i++
			return g.result(gr)
		}
		if len(pending) == 0 && len(sp.runs) == 0 {
			return nil, nil
		}
		if m == nil {
			sortRecords(pending)
			var err error
			if m, err = sp.merge(pending, compareSpillRecords); err != nil {
				return nil, err
			}
		}
		return g.nextSpilled(m, rc.vars)
	}}, nil
}

// A spill record is uvarint(len(ks)) ks seq(8 bytes) {k: key, i: [inputs]}.
func (g *groupStage) spillRecord(ks []byte, seq uint64, key bsoncore.Value, d bsoncore.Document, vars *expr.Vars) ([]byte, error) {
	rec := binary.AppendUvarint(nil, uint64(len(ks)))
	rec = append(rec, ks...)
	rec = binary.BigEndian.AppendUint64(rec, seq)
	idx, body := bsoncore.AppendDocumentStart(rec)
	body = bsoncore.AppendValueElement(body, "k", key)
	aidx, body := bsoncore.AppendArrayElementStart(body, "i")
	for i, f := range g.facs {
		v, err := f.Input(d, vars)
		if err != nil {
			return nil, err
		}
		if expr.IsMissing(v) {
			// Record missing as an empty document marker {m: 1}.
			body = bsoncore.AppendDocumentElement(body, itoa(i), missingMarker)
			continue
		}
		body = bsoncore.AppendDocumentElement(body, itoa(i), bsoncore.NewDocumentBuilder().AppendValue("v", v).Build())
	}
	body, _ = bsoncore.AppendArrayEnd(body, aidx)
	body, _ = bsoncore.AppendDocumentEnd(body, idx)
	return body, nil
}

var missingMarker = bsoncore.NewDocumentBuilder().AppendInt32("m", 1).Build()

// splitSpillRecord returns the key string, sequence and body of a record.
func splitSpillRecord(r []byte) (ks []byte, seq uint64, body bsoncore.Document) {
	n, w := binary.Uvarint(r)
	ks = r[w : w+int(n)]
	seq = binary.BigEndian.Uint64(r[w+int(n):])
	return ks, seq, r[w+int(n)+8:]
}

func compareSpillRecords(a, b []byte) int {
	ka, sa, _ := splitSpillRecord(a)
	kb, sb, _ := splitSpillRecord(b)
	if c := compareBytes(ka, kb); c != 0 {
		return c
	}
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}

func sortRecords(recs [][]byte) {
	sortSlice(recs, compareSpillRecords)
}

// nextSpilled folds the next group from the merged runs.
func (g *groupStage) nextSpilled(m *merger, vars *expr.Vars) (bsoncore.Document, error) {
	var gr *group
	var curKS []byte
	for {
		r, err := m.peek()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		ks, _, body := splitSpillRecord(r)
		if gr != nil && compareBytes(ks, curKS) != 0 {
			break
		}
		m.pop()
		if gr == nil {
			curKS = ks
			if gr, _, err = g.newGroup(body.Lookup("k"), vars); err != nil {
				return nil, err
			}
		}
		vals, _ := body.Lookup("i").Array().Values()
		for i, iv := range vals {
			ed := iv.Document()
			v := ed.Lookup("v")
			if err := gr.accs[i].Add(v); err != nil {
				return nil, err
			}
		}
	}
	if gr == nil {
		return nil, nil
	}
	return g.result(gr)
}
