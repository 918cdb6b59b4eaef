package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Scope is the kind of resource an Access names.
type Scope uint8

const (
	// ScopeCollection is one collection (or view): DB and Coll.
	ScopeCollection Scope = iota
	// ScopeDatabase is every normal collection of DB.
	ScopeDatabase
	// ScopeCluster is the cluster.
	ScopeCluster
	// ScopeAnyNormal is every normal collection of every database.
	ScopeAnyNormal
)

// Namespace is where a pipeline runs: Coll is "" for {aggregate: 1}.
type Namespace struct{ DB, Coll string }

// Access is one privilege running a pipeline needs, in mongod's terms
// (LiteParsedDocumentSource::requiredPrivileges): actions, by their mongod
// names, on a resource. The server turns each into its own check
// (internal/server/authz.go).
type Access struct {
	Scope    Scope
	DB, Coll string
	Actions  []string
	// SelfUsers, when not nil, waives the privilege for a user who is
	// every one of them (an empty list: oneself), as $listSessions and
	// $listLocalSessions list one's own sessions without listSessions.
	SelfUsers []SessionUser
}

// stageAccess declares what one stage reads or writes besides its input
// documents: the namespaces of its sub-pipelines and targets, with the
// actions they need. ns is where the stage runs. Each stage's is beside
// its parser (lookupAccess in lookup.go, outAccess in out.go, ...) and
// named in the registry (stageDefs, stagedef.go).
type stageAccess func(spec bsoncore.Value, ns Namespace) ([]Access, error)

// noAccess is the declaration of a stage that touches nothing but its
// input.
func noAccess(bsoncore.Value, Namespace) ([]Access, error) { return nil, nil }

// onNS declares acts on the namespace the stage runs in.
func onNS(acts ...string) stageAccess {
	return func(_ bsoncore.Value, ns Namespace) ([]Access, error) {
		return []Access{{Scope: ScopeCollection, DB: ns.DB, Coll: ns.Coll, Actions: acts}}, nil
	}
}

// onCluster declares acts on the cluster.
func onCluster(acts ...string) stageAccess {
	return func(bsoncore.Value, Namespace) ([]Access, error) {
		return []Access{{Scope: ScopeCluster, Actions: acts}}, nil
	}
}

func findOn(db, coll string) Access {
	return Access{Scope: ScopeCollection, DB: db, Coll: coll, Actions: []string{"find"}}
}

// PipelineAccess lists every privilege running pipeline on ns needs, as
// mongod's getPrivilegesForAggregate: find on ns unless the pipeline opens
// with an initial source ($collStats, $documents, $changeStream, ...),
// then what each stage declares in the stage registry (pipeline.go), which
// walks the sub-pipelines of $lookup, $unionWith and $facet at any depth.
// The errors are those mongod raises while lite-parsing a pipeline, before
// it checks privileges (a $lookup from a namespace of another database
// that is not one of mongod's internal ones). {aggregate: 1} asks no find:
// a stage that needs a collection refuses it when parsed. A $lookup or
// $unionWith sub-pipeline is walked the same way on its foreign
// namespace (a collection-less one must open with $documents).
func PipelineAccess(ns Namespace, pipeline []bsoncore.Document) ([]Access, error) {
	var out []Access
	if ns.Coll != "" && !startsWithInitialSource(pipeline) {
		out = append(out, findOn(ns.DB, ns.Coll))
	}
	sub, err := stagesAccess(ns, pipeline)
	return append(out, sub...), err
}

func stagesAccess(ns Namespace, pipeline []bsoncore.Document) ([]Access, error) {
	var out []Access
	for _, d := range pipeline {
		el, err := d.IndexErr(0)
		if err != nil {
			continue // malformed: refused when parsed
		}
		def, ok := stageDefs[el.Key()]
		if !ok {
			continue // unknown: refused when parsed
		}
		acc, err := def.access(el.Value(), ns)
		if err != nil {
			return nil, err
		}
		out = append(out, acc...)
	}
	return out, nil
}

func startsWithInitialSource(pipeline []bsoncore.Document) bool {
	if len(pipeline) == 0 {
		return false
	}
	el, err := pipeline[0].IndexErr(0)
	if err != nil {
		return false
	}
	def, ok := stageDefs[el.Key()]
	return ok && def.initial
}

// StageNames lists every stage the registry knows, for the tests that
// must cover each one.
func StageNames() []string {
	out := make([]string, 0, len(stageDefs))
	for n := range stageDefs {
		out = append(out, n)
	}
	return out
}

// pipelineDocs is the stage documents of an array value (others are left
// to the parser to refuse).
func pipelineDocs(v bsoncore.Value) []bsoncore.Document {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	out := make([]bsoncore.Document, 0, len(vals))
	for _, x := range vals {
		if d, ok := x.DocumentOK(); ok {
			out = append(out, d)
		}
	}
	return out
}
