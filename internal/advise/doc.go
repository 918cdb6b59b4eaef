// Package advise is Lode's index advisor, the engine of `lode advise`.
//
// It reads the query shapes a server has recorded ($queryStats documents:
// per shape the filter, sort and limit of a representative query and the
// keys and documents examined so far), and for each shape that its plan
// serves badly derives a candidate index by the Equality, Sort, Range rule:
// first the fields compared for equality ($eq, a one-value $in, null, and
// a several-value $in that Lode's planner explodes into point scans merged
// in sort order by SORT_MERGE), then the sort fields in their directions,
// then the fields bounded by ranges. An $elemMatch on an array of
// subdocuments gives dotted paths ("metadata.key"); under $all the first
// $elemMatch is the one Lode's planner bounds the index with.
//
// Only shapes that ran often enough get candidates (Options.MinRuns, or
// MinShareRuns with MinShare of the execution time). Candidates of one
// namespace are merged: a candidate that another one serves as well (same
// equality set first, then the same sort, then one of its range fields)
// is dropped, and duplicates are removed. Each remaining candidate is
// costed without being built: the server's lodeWhatIf command
// (engine.WhatIf) plans the shape's representative query with the
// hypothetical index beside the real ones, picks the plan Lode would run
// and estimates its keys and documents examined on a sample of the
// collection. A candidate is proposed only when that estimate beats the
// figures the shape shows today.
//
// The report also lists unused indexes ($indexStats accesses.ops of 0,
// _id_ excepted) observed for at least Options.MinObserved of server
// running time (Lode saves that time with the counters, in
// local.system.lode.queryStats), the ones observed for less without a
// verdict, and indexes whose key pattern is a prefix of another index's
// on the same collection. WriteMongosh prints the advice as a script
// that pastes into mongosh; Apply builds the proposals.
//
// The shape statistics come through a StatsSource, a function returning
// $queryStats-shaped documents, so any recorder can feed the advisor.
package advise
