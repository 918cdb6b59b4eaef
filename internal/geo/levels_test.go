package geo

import "testing"

// mongod's v3 defaults correspond to level 16 (finest, 110 m) and level 2
// (coarsest, 2000 km) of the S2 cell statistics table.
func TestIndexedLevels(t *testing.T) {
	if FinestIndexedLevel != 16 || CoarsestIndexedLevel != 2 {
		t.Fatalf("levels: finest %d coarsest %d, want 16 and 2", FinestIndexedLevel, CoarsestIndexedLevel)
	}
}
