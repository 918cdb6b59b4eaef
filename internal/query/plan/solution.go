package plan

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// Stage names, as explain prints them.
const (
	StageCollScan = "COLLSCAN"
	StageIxScan   = "IXSCAN"
	StageFetch    = "FETCH"
	// StageDistinctScan is an index scan that skips to the next distinct
	// value of one field (distinct).
	StageDistinctScan = "DISTINCT_SCAN"
	StageSortMerge    = "SORT_MERGE"
	StageOr           = "OR"
	StageEOF          = "EOF"
	// StageGeoNear2DSphere answers $near/$nearSphere over a 2dsphere
	// index in growing annuli (geo.go, exec/geonear.go).
	StageGeoNear2DSphere = "GEO_NEAR_2DSPHERE"
	// StageGeoNear2D answers $near/$nearSphere over a 2d index.
	StageGeoNear2D = "GEO_NEAR_2D"
)

// Node is one node of a query solution.
type Node struct {
	Stage    string
	Children []*Node

	// IXSCAN: the index, the bounds of each field (in index order and
	// value order) and the scan direction (1 forward, -1 backward).
	Index     *Index
	Bounds    []FieldBounds
	Direction int
	// DistinctField is, for DISTINCT_SCAN, the position of the distinct
	// field in the index (the fields before it are single points).
	DistinctField int
	// MergePrefixFields is, for an IXSCAN under SORT_MERGE, the number of
	// leading fields (all points) that precede the sort fields.
	MergePrefixFields int

	// COLLSCAN direction is Direction. FETCH and COLLSCAN apply Filter
	// when set.
	Filter bool
	// ClusterBounds are, for a COLLSCAN of a clustered collection, the
	// bounds on its cluster key (_id) that limit the records it reads:
	// explain's CLUSTERED_IXSCAN with minRecord and maxRecord
	// (clustered.go). Nil: every record.
	ClusterBounds []FieldBounds
	// KeyRange is, for an IXSCAN (or a clustered collection's COLLSCAN),
	// a find's min/max: the scan reads the keys from Lo (inclusive) to Hi
	// (exclusive) in index order instead of Bounds (minmax.go).
	KeyRange *KeyRange
	// Dropped are, for a FETCH over an index scan, the top-level
	// conjuncts the index bounds guarantee; Residual is the filter
	// without them (nil with Filter unset when nothing remains). When
	// Dropped is empty FETCH applies the whole filter.
	Dropped  []query.Node
	Residual *query.Filter
	// ResidualDoc is Residual as explain shows it, filled by the caller
	// (the planner does not render filters).
	ResidualDoc bsoncore.Document

	// Near is GEO_NEAR_2DSPHERE's predicate; Bounds then hold the
	// bounds of the index's other fields (the geo field's are full).
	Near *query.NearNode
	// SORT_MERGE's order.
	Sort *query.Sort
	// Dedup is set when the scans can return a record more than once
	// (multikey indexes, OR).
	Dedup bool
	// Text is TEXT_MATCH's and TEXT_OR's query (text.go).
	Text *TextPlan
	// BranchFilter, when set, is the filter a FETCH or TEXT_OR applies
	// instead of the query's: its branch of a $text $or (textor.go).
	BranchFilter    *query.Filter
	BranchFilterDoc bsoncore.Document
	// Scored marks, for an OR over a $text $or, which children give a
	// text score (the others' documents have none).
	Scored []bool
}

// Solution is one candidate plan for a query: a tree without SORT, SKIP,
// LIMIT and projection, which the executor adds.
type Solution struct {
	Root *Node
	// BlockingSort is set when the query's sort needs a SORT stage.
	BlockingSort bool
	// Covered is set when the index keys answer the filter exactly, so a
	// count or distinct needs no FETCH (Root is then the IXSCAN itself).
	Covered bool
	// Index is the index the plan scans (nil for COLLSCAN and EOF).
	Index *Index
	// CoveredProjection is set when the index keys answer both the filter
	// and the find's projection: the plan has no FETCH and the executor
	// puts PROJECTION_COVERED on top (Root is the IXSCAN).
	CoveredProjection bool
	// HitScanLimit is set when the index provides the sort only through
	// SORT_MERGE and that needed more than MaxScansToExplode scans, so the
	// plan sorts in memory (explain's maxScansToExplodeReached).
	HitScanLimit bool
	// rank orders candidates before the trial (lower is better).
	rank int
}

// Params is the input of the planner.
type Params struct {
	NS        string
	Filter    *query.Filter
	FilterDoc bsoncore.Document
	// Sort is nil when the query has no sort (or a $natural one).
	Sort    *query.Sort
	SortDoc bsoncore.Document
	// NaturalDir is -1 for {$natural: -1} (sort or hint), else 1.
	NaturalDir int
	Indexes    []*Index
	// Hint is a name (string) or key pattern (document); zero when absent.
	Hint bsoncore.Value
	// MaxScansToExplode bounds SORT_MERGE's number of scans; 0 disables it.
	MaxScansToExplode int
	// Covered asks for plans that avoid FETCH when the index keys answer
	// the filter (count, distinct).
	Covered bool
	// DistinctKey, when set, prefers indexes whose fields include it.
	DistinctKey string
	// ProjFields are the fields a find's projection needs when it is
	// coverable (see CoverableProjection); nil otherwise.
	ProjFields []string
	// TextIndex is the collection's text index (nil when it has none);
	// it is not among Indexes, as only $text uses it.
	TextIndex *Index
}
