package catalog

// Index key formats, recorded per index in the catalog entry
// (Index.KeyFormat).
const (
	// KeyFormatCrossProduct: compound multikey keys were the cross product
	// of every field's values, and an array element lacking the indexed
	// subfield produced no key. Catalog entries without a keyFormat field
	// use it.
	KeyFormatCrossProduct = 1
	// KeyFormatElementWise: MongoDB's element-by-element generation
	// (internal/indexkey).
	KeyFormatElementWise = 2

	// KeyFormatCurrent is the format new keys are generated in.
	KeyFormatCurrent = KeyFormatElementWise
)

// NeedsKeyRebuild reports whether an index built with an older key format
// may hold other keys than the current format generates: only arrays met
// before the end of a field's path (a multikey path that is a strict
// prefix of an indexed field) make the formats differ. An index whose
// arrays all sit at the end of its paths, or that never met an array, has
// the same keys in both.
func (ix *Index) NeedsKeyRebuild() bool {
	if ix.KeyFormat >= KeyFormatCurrent || !ix.Multikey {
		return false
	}
	if len(ix.MultikeyPaths) == 0 {
		return true // no path information: assume the worst
	}
	for _, m := range ix.MultikeyPaths {
		for _, f := range ix.Fields {
			if len(f.Path) > len(m) && f.Path[:len(m)] == m && f.Path[len(m)] == '.' {
				return true
			}
		}
	}
	return false
}
