package exec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/plan"
)

// ProjectionCovered is PROJECTION_COVERED: it builds each result from the
// index key of its input (an IXSCAN, possibly under SKIP and LIMIT)
// without reading the document. The planner chooses it only when the
// filter is answered exactly by the bounds and every projected field is a
// non-multikey index field that cannot be null or missing. Fields come out
// in index key order, as mongod's covered projection emits them. Results
// keep the index key they were built from.
type ProjectionCovered struct {
	base
	ix     *plan.Index
	spec   bsoncore.Document
	dirs   []bool
	fields []int // positions in the key of the fields to output
	slab   slab
	m      Member
}

// NewProjectionCovered returns a PROJECTION_COVERED over child, which
// yields entries of ix, producing the fields named in fields.
func NewProjectionCovered(child Stage, ix *plan.Index, fields []string, spec bsoncore.Document, timing bool) *ProjectionCovered {
	p := &ProjectionCovered{ix: ix, spec: spec, dirs: ix.Directions()}
	for i, f := range ix.Fields {
		for _, want := range fields {
			if f.Path == want {
				p.fields = append(p.fields, i)
				break
			}
		}
	}
	p.children = []Stage{child}
	p.timing = timing
	return p
}

// Name implements Stage.
func (p *ProjectionCovered) Name() string { return "PROJECTION_COVERED" }

// Work implements Stage.
func (p *ProjectionCovered) Work() (State, *Member, error) {
	start := p.now()
	st, in, err := p.children[0].Work()
	if err == nil && st == Advanced {
		var kv []bsoncore.Value
		kv, err = keystring.Decode(in.Key, p.dirs, in.TypeBits)
		if err != nil {
			err = fmt.Errorf("covered projection: decoding a key of index %s: %w", p.ix.Name, err)
		} else {
			b := bsoncore.NewDocumentBuilder()
			for _, i := range p.fields {
				b.AppendValue(p.ix.Fields[i].Path, kv[i])
			}
			p.m = Member{RID: in.RID, Key: in.Key, TypeBits: in.TypeBits, Doc: p.slab.copy(b.Build()), Pos: -1}
			in = &p.m
		}
	}
	if err != nil {
		st, in = EOF, nil
	}
	p.record(st, start)
	return st, in, err
}

// Close implements Stage.
func (p *ProjectionCovered) Close() { p.closeChildren() }

func (p *ProjectionCovered) explain(b *bsoncore.DocumentBuilder, _ bool) {
	b.AppendDocument("transformBy", p.spec)
}
