package engine

// CollectionStats are the figures of collStats and dbStats.
type CollectionStats struct {
	Count int64
	// Size is the total BSON size of the documents.
	Size int64
	// StorageSize estimates the on-disk bytes of the records.
	StorageSize int64
	// IndexSizes maps index name to estimated on-disk bytes.
	IndexSizes map[string]int64
	// TotalIndexSize is the sum of IndexSizes.
	TotalIndexSize int64
	NIndexes       int
	Capped         bool
	Max            int64
	MaxSize        int64
}
