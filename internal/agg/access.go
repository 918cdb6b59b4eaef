package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
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
// actions they need. ns is where the stage runs.
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

// lookupForeignDBAllowed is mongod's rule for $lookup's from: {db, coll}:
// the form reads only internal namespaces (config.cache.chunks.*,
// local.oplog.rs, config.collections, config.chunks and, before 8.0,
// local.tenantMigration.oplogView); a user namespace must be named by a
// string, in the aggregate's own database.
func lookupForeignDBAllowed(db, coll string) bool {
	switch {
	case db == "config" && strings.HasPrefix(coll, "cache.chunks."):
		return true
	case db == "local" && (coll == "oplog.rs" || coll == "tenantMigration.oplogView"):
		return true
	case db == "config" && (coll == "collections" || coll == "chunks"):
		return true
	}
	return false
}

// LookupFrom resolves $lookup's from in database db as mongod's
// parseLookupFromAndResolveNamespace: a string names a collection of db;
// {db, coll} only one of the internal namespaces lookupForeignDBAllowed
// lists, FailedToParse (9) otherwise.
func LookupFrom(v bsoncore.Value, db string) (string, string, error) {
	switch v.Type {
	case bsoncore.TypeString:
		return db, v.StringValue(), nil
	case bsoncore.TypeEmbeddedDocument:
	default:
		return "", "", errs.New(errs.FailedToParse, "$lookup 'from' field must be a string, but found %s", bsonutil.TypeName(v.Type))
	}
	var fdb, fcoll string
	els, err := v.Document().Elements()
	if err != nil {
		return "", "", errs.New(errs.InvalidBSON, "$lookup from: %v", err)
	}
	for _, el := range els {
		s, ok := el.Value().StringValueOK()
		switch el.Key() {
		case "db", "coll":
			if !ok {
				return "", "", errs.New(errs.TypeMismatch, "BSON field 'from.%s' is the wrong type '%s', expected type 'string'", el.Key(), bsonutil.TypeName(el.Value().Type))
			}
			if el.Key() == "db" {
				fdb = s
			} else {
				fcoll = s
			}
		default:
			return "", "", errs.New(errs.Location40415, "BSON field 'from.%s' is an unknown field.", el.Key())
		}
	}
	if !lookupForeignDBAllowed(fdb, fcoll) {
		return "", "", errs.New(errs.FailedToParse, "$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: %s and coll: %s", fdb, fcoll)
	}
	return fdb, fcoll, nil
}

// lookupAccess: find on the foreign namespace (unless the sub-pipeline
// opens with $documents) and what the sub-pipeline needs, as mongod's
// DocumentSourceLookUp::LiteParsed.
func lookupAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	foreign := Namespace{DB: ns.DB}
	if from, err := d.LookupErr("from"); err == nil {
		db, coll, err := LookupFrom(from, ns.DB)
		if err != nil {
			return nil, err
		}
		foreign = Namespace{DB: db, Coll: coll}
	}
	return PipelineAccess(foreign, pipelineDocs(d.Lookup("pipeline")))
}

// graphLookupAccess: find on from, a collection of the aggregate's
// database (the {db, coll} form is refused when parsed).
func graphLookupAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	if from, ok := d.Lookup("from").StringValueOK(); ok {
		return []Access{findOn(ns.DB, from)}, nil
	}
	return nil, nil
}

// unionWithAccess: find on coll, a collection of the aggregate's database
// (unless the sub-pipeline opens with $documents), and what the
// sub-pipeline needs.
func unionWithAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	if s, ok := spec.StringValueOK(); ok {
		return []Access{findOn(ns.DB, s)}, nil
	}
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	coll, _ := d.Lookup("coll").StringValueOK()
	return PipelineAccess(Namespace{DB: ns.DB, Coll: coll}, pipelineDocs(d.Lookup("pipeline")))
}

// facetAccess: what each facet's pipeline needs (they run on the input
// documents, so no find of their own).
func facetAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	els, _ := d.Elements()
	var out []Access
	for _, f := range els {
		acc, err := stagesAccess(ns, pipelineDocs(f.Value()))
		if err != nil {
			return nil, err
		}
		out = append(out, acc...)
	}
	return out, nil
}

// outAccess: insert and remove on the target, which {db, coll} may put in
// any database (mongod's DocumentSourceOut::LiteParsed).
func outAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	db, coll, err := parseTarget("$out", spec, ns.DB)
	if err != nil {
		return nil, err
	}
	return []Access{{Scope: ScopeCollection, DB: db, Coll: coll, Actions: []string{"insert", "remove"}}}, nil
}

// mergeAccess: on the target of into, in any database, insert when
// unmatched documents are inserted and update unless whenMatched is
// fail, as mongod's $merge descriptors.
func mergeAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	into := spec
	whenMatched, whenNotMatched := "merge", "insert"
	if d, ok := spec.DocumentOK(); ok {
		into = d.Lookup("into")
		if s, ok := d.Lookup("whenMatched").StringValueOK(); ok {
			whenMatched = s
		} else if d.Lookup("whenMatched").Type == bsoncore.TypeArray {
			whenMatched = "pipeline"
		}
		if s, ok := d.Lookup("whenNotMatched").StringValueOK(); ok {
			whenNotMatched = s
		}
	}
	if into.Type == 0 {
		return nil, nil // refused when parsed
	}
	db, coll, err := parseTarget("$merge", into, ns.DB)
	if err != nil {
		return nil, err
	}
	var acts []string
	if whenNotMatched == "insert" {
		acts = append(acts, "insert")
	}
	if whenMatched != "fail" {
		acts = append(acts, "update")
	}
	return []Access{{Scope: ScopeCollection, DB: db, Coll: coll, Actions: acts}}, nil
}

// changeStreamAccess: changeStream and find on what the stream watches:
// the collection, the database ({aggregate: 1}) or, on admin, every
// normal collection (mongod's DocumentSourceChangeStream::LiteParsed).
func changeStreamAccess(_ bsoncore.Value, ns Namespace) ([]Access, error) {
	acts := []string{"changeStream", "find"}
	switch {
	case ns.Coll != "":
		return []Access{{Scope: ScopeCollection, DB: ns.DB, Coll: ns.Coll, Actions: acts}}, nil
	case ns.DB == "admin":
		return []Access{{Scope: ScopeAnyNormal, Actions: acts}}, nil
	}
	return []Access{{Scope: ScopeDatabase, DB: ns.DB, Actions: acts}}, nil
}

// listSessionsAccess: listSessions on the cluster, unless the stage lists
// only the user's own sessions (no users, or users naming only oneself),
// as mongod's listSessionsRequiredPrivileges.
func listSessionsAccess(name string) stageAccess {
	return func(spec bsoncore.Value, _ Namespace) ([]Access, error) {
		a := Access{Scope: ScopeCluster, Actions: []string{"listSessions"}}
		if sp, err := ParseListSessionsSpec(name, spec, nil, false); err == nil && !sp.AllUsers {
			a.SelfUsers = sp.Users
			if len(a.SelfUsers) == 1 && a.SelfUsers[0] == (SessionUser{}) {
				a.SelfUsers = []SessionUser{} // none named: oneself
			}
		}
		return []Access{a}, nil
	}
}
