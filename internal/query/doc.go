// Package query implements MongoDB 7.0's find-filter language, projection
// and sort on raw bsoncore documents.
//
// A filter is parsed once into a typed match tree (Parse), validated up
// front with MongoDB's error codes and messages, and then matched against
// many documents (Filter.Match, Filter.MatchPositional). The tree's nodes
// are exported so that the query planner can derive index bounds from them.
//
// Projections (ParseProjection) and sorts (ParseSort) follow the same
// parse-once, apply-many design. UpsertSeed derives the document an upsert
// starts from out of a filter's equality predicates.
package query
