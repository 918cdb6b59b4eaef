// Package agg implements MongoDB 7.0's aggregation pipeline: parsing of the
// pipeline stages with MongoDB's error codes, and a streaming, pull-based
// executor in which every stage pulls documents from its input one at a
// time. Only the stages that must see their whole input ($group, $sort,
// $bucketAuto, $facet, $sample) hold documents, and they count the bytes
// they hold: past MemoryLimit they fail with QueryExceededMemoryLimitNoDiskUseAllowed
// (292) or, when disk use is allowed, spill sorted runs to temporary files.
//
// A leading $match (with a following $sort, $skip, $limit and an
// inclusion-only $project) is pushed down into the Catalog's Find so that
// indexes serve it. Package agg does not import the engine: the Catalog
// interface is implemented for *engine.Engine by package agg/aggengine.
package agg
