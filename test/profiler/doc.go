// Package profiler tests, through the Go driver, what Lode reports about
// the operations it runs: the profile command and system.profile
// (MongoDB 7.0's profiler), the query statistics read with $queryStats,
// and the per-operation figures both carry (keysExamined, docsExamined,
// nreturned, planSummary).
package profiler
