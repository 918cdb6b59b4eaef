package exec

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// Projection is PROJECTION_SIMPLE (top-level inclusions or exclusions) or
// PROJECTION_DEFAULT (anything else): it reshapes each document.
type Projection struct {
	base
	proj *query.Projection
	spec bsoncore.Document
	name string
	m    Member
}

// NewProjection returns a projection stage over child.
func NewProjection(child Stage, proj *query.Projection, spec bsoncore.Document, timing bool) *Projection {
	p := &Projection{proj: proj, spec: spec, name: projectionName(spec)}
	p.children = []Stage{child}
	p.timing = timing
	return p
}

// projectionName picks MongoDB's stage name for a projection spec.
func projectionName(spec bsoncore.Document) string {
	elems, _ := spec.Elements()
	for _, e := range elems {
		if strings.ContainsAny(e.Key(), ".$") {
			return "PROJECTION_DEFAULT"
		}
		switch e.Value().Type {
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeBoolean:
		default:
			return "PROJECTION_DEFAULT"
		}
	}
	return "PROJECTION_SIMPLE"
}

// Name implements Stage.
func (p *Projection) Name() string { return p.name }

// Work implements Stage.
func (p *Projection) Work() (State, *Member, error) {
	start := p.now()
	st, in, err := p.children[0].Work()
	if err == nil && st == Advanced {
		var d bsoncore.Document
		d, err = p.proj.ApplyScore(in.Doc, in.Pos, in.Score)
		if err == nil {
			p.m = Member{RID: in.RID, Doc: d, Pos: in.Pos, Score: in.Score}
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
func (p *Projection) Close() { p.closeChildren() }

func (p *Projection) explain(b *bsoncore.DocumentBuilder, _ bool) {
	b.AppendDocument("transformBy", p.spec)
}
