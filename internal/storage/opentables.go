package storage

// Pebble keeps an open file and a reader for each sstable it reads, in a
// cache of at most MaxOpenFiles tables (1,000 by default); a read that
// needs a table the cache dropped opens the file and reads its footer,
// index and properties again. Every batch committed by ingestion leaves
// its tables (records, each index, the oplog) in the last level, where
// nothing merges neighbouring tables, so a load of 10M documents in
// batches of 10,000 leaves about 3,000 of them: past 1,000, reads cycle
// through the cache. Measured after such a load (docs/benchmarks.md,
// fourteenth session of issue 33, "The table cache after a large load"):
// 20,000 random finds by _id cost 290–330 µs of server CPU each on a
// fresh start and 98–125 µs on a second pass, and 160–180 and 90–95 with
// room for every table.
//
// So the cache is sized from the open-file limit. Connections may use 80%
// of it (--max-connections' default); the tables get 15%, which leaves
// the last 5% to the logs, the manifest, a sort's spilled runs, the
// tables a commit by ingestion is writing and the listeners, so that a
// server at its connection cap with every table open still has room for
// a new log. The cache holds at least minOpenTables (a limit of 1,024
// gives 256, where Pebble's 1,000 could take what the connections left)
// and at most maxOpenTables (each open table holds a descriptor and a few
// KiB of reader).
const (
	minOpenTables = 256
	maxOpenTables = 32768
)

// openTables returns the size of the table cache for an open-file limit
// of limit (ok false: unknown, Pebble's default).
func openTables(limit uint64, ok bool) int {
	if !ok {
		return 1000
	}
	return int(min(max(limit*15/100, minOpenTables), maxOpenTables))
}
