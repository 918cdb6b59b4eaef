package storage

import (
	"encoding/binary"
	"testing"
)

// TestTableCacheHoldsALoadsTables: a database whose last level holds
// more tables than Pebble's default table cache (1,000), as a large load
// committed by ingestion leaves it, keeps them all open: a second pass of
// reads over every table opens none again. With MaxOpenFiles left at
// Pebble's default the second pass reopens hundreds.
func TestTableCacheHoldsALoadsTables(t *testing.T) {
	const tables = 1200
	if want := openTables(fileLimit()); want < tables+100 {
		t.Skipf("the open-file limit gives a table cache of %d, too small for %d tables", want, tables)
	}
	db := openTestDB(t)
	doc := make([]byte, 64)
	binary.LittleEndian.PutUint32(doc, uint32(len(doc)))
	groups := make([][]ingestEntry, tables)
	for i := range groups {
		groups[i] = []ingestEntry{{key: appendRecordKey(nil, 7, RecordID(i+1)), value: doc}}
	}
	if err := db.ingestRuns(groups); err != nil {
		t.Fatal(err)
	}
	if n := db.pdb.Metrics().Levels[6].TablesCount; n < tables {
		t.Fatalf("%d tables in the last level, want %d", n, tables)
	}
	pass := func() int64 {
		before := db.Metrics().TableCacheMisses
		for i := range tables {
			if _, found, err := GetRecord(db.Reader(), 7, RecordID(i+1), nil); err != nil || !found {
				t.Fatalf("record %d: found %v, %v", i+1, found, err)
			}
		}
		return db.Metrics().TableCacheMisses - before
	}
	if n := pass(); n < tables {
		t.Errorf("first pass opened %d tables, want at least %d (is the miss counter read?)", n, tables)
	}
	if n := pass(); n != 0 {
		m := db.Metrics()
		t.Errorf("second pass opened %d tables again (cache of %d, %d open)", n, m.OpenTablesMax, m.OpenTables)
	}
}
