// Package plan is Lode's query planner. It turns a parsed filter (package
// query) and a sort into candidate query solutions over a collection's
// indexes, following MongoDB 7.0's planner:
//
//   - Index bounds come from the predicates on each index field: points
//     for $eq and $in (equality to null is [undefined, undefined],
//     [null, null] as in MongoDB 7.0: it also matches missing fields,
//     indexed as null, so its bounds need the FETCH filter; with a sort on
//     the next field the two points make a SORT_MERGE), ranges for $gt/$gte/$lt/$lte within
//     the value's type bracket, prefix ranges for anchored regexes, and
//     the predicates inside $elemMatch. For $all of $elemMatch the first
//     element's bounds are used and the rest stays in the filter.
//   - Multikey rules (index keys are generated element by element, using
//     the index's multikey paths): bounds on two fields that share a
//     multikey prefix are compounded, and bounds of two predicates on one
//     multikey field intersected, only when both predicates sit in the same
//     $elemMatch whose path reaches every shared multikey prefix; otherwise
//     the later field keeps [MinKey, MaxKey] (one predicate bounds a
//     multikey field) and FETCH applies the whole filter.
//   - An index provides a sort, in either direction, when the sort fields
//     follow its equality fields. When $in fields precede the sort fields,
//     one scan per combination of $in points is merged (SORT_MERGE), up to
//     MaxScansToExplode scans.
//
// Choosing among candidates: a hint picks the index outright. Otherwise,
// when several candidates remain, the executor runs a short trial (package
// exec, MultiPlan): each plan works in turn until one produces a batch of
// results or hits EOF, or a works budget runs out, and the plan with the
// best productivity (results per work) wins, with MongoDB's bonuses for EOF,
// for not sorting in memory and for not fetching. The planner only orders
// the candidates (equality, then sort, then range, as in seed 003's rules
// of index design); that order breaks exact ties in the trial.
package plan
