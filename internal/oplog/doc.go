// Package oplog is Lode's operation log: an ordered record of every
// committed change, kept in the same Pebble database as the data and
// written in the same batch as the change it describes, so the log and
// the data can never disagree. Entries have mongod's oplog format (ts, t,
// v, op, ns, ui, o, o2, wall, and lsid/txnNumber for transactions) and are
// read as local.oplog.rs and by change streams.
//
// Timestamps come from one Clock. A batch reserves its timestamps before
// it commits and releases them after; Visible is the newest timestamp
// below which every reservation has ended, so a reader that stops there
// never skips an entry that commits late. The log's size is bounded:
// whole chunks of the oldest entries are deleted once it exceeds its
// limit (trim.go).
package oplog
