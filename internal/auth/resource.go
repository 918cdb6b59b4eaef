package auth

import "strings"

// Resource is what a command acts on: the cluster, a database, or one
// collection; or, for a check that needs it everywhere at once, every
// normal resource (AnyNormal).
type Resource struct {
	Cluster bool
	// AnyNormal is mongod's forAnyNormalResource in a check: only a
	// privilege on every normal resource (or on anyResource) covers it.
	AnyNormal bool
	DB        string
	// Coll is empty for a database-level action (dropDatabase,
	// listCollections, ...).
	Coll string
}

// ClusterResource is the cluster.
var ClusterResource = Resource{Cluster: true}

// AnyNormalResource is every database and non-system collection at once:
// updateRole and updateUser with roles need revokeRole on it.
var AnyNormalResource = Resource{AnyNormal: true}

// DBResource is database db.
func DBResource(db string) Resource { return Resource{DB: db} }

// CollResource is the collection db.coll.
func CollResource(db, coll string) Resource { return Resource{DB: db, Coll: coll} }

// String renders r as mongod names resources in errors.
func (r Resource) String() string {
	switch {
	case r.Cluster:
		return "cluster"
	case r.AnyNormal:
		return "<all normal resources>"
	case r.Coll == "":
		return r.DB
	}
	return r.DB + "." + r.Coll
}

// isSystem reports whether r is a system collection, which "normal"
// resource patterns (a database, anyResource-less patterns) do not cover.
func (r Resource) isSystem() bool { return strings.HasPrefix(r.Coll, "system.") }

// isNormal is mongod's "normal resource": not a system collection, and
// not in the local or config databases.
func (r Resource) isNormal() bool { return !r.isSystem() && r.DB != "local" && r.DB != "config" }

// PatternKind is the shape of a privilege's resource document.
type PatternKind uint8

// The resource pattern kinds of mongod's privilege documents.
const (
	// PatternCollection is {db: "x", collection: "y"}.
	PatternCollection PatternKind = iota
	// PatternDB is {db: "x", collection: ""}: the database and its
	// non-system collections.
	PatternDB
	// PatternCollAnyDB is {db: "", collection: "y"}.
	PatternCollAnyDB
	// PatternAnyNormal is {db: "", collection: ""}: every database and
	// every non-system collection.
	PatternAnyNormal
	// PatternCluster is {cluster: true}.
	PatternCluster
	// PatternAnyResource is {anyResource: true}.
	PatternAnyResource
)

// Pattern is a privilege's resource.
type Pattern struct {
	Kind PatternKind
	DB   string
	Coll string
}

// Matches reports whether the pattern covers r.
func (p Pattern) Matches(r Resource) bool {
	switch p.Kind {
	case PatternAnyResource:
		return true
	case PatternCluster:
		return r.Cluster
	}
	if r.Cluster {
		return false
	}
	if r.AnyNormal {
		return p.Kind == PatternAnyNormal
	}
	switch p.Kind {
	case PatternCollection:
		return r.DB == p.DB && r.Coll == p.Coll
	case PatternDB:
		return r.DB == p.DB && !r.isSystem()
	case PatternCollAnyDB:
		return r.Coll == p.Coll
	case PatternAnyNormal:
		return r.isNormal()
	}
	return false
}

// Privilege grants actions on the resources a pattern covers.
type Privilege struct {
	Resource Pattern
	Actions  ActionSet
}
