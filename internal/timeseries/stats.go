package timeseries

import (
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Stats are a time series collection's bucket catalog figures, as
// mongod 7.0's collStats reports them in its timeseries section. They
// count from the server's start, as mongod's do.
type Stats struct {
	BucketInserts, BucketUpdates          atomic.Int64
	OpenedDueToMetadata                   atomic.Int64
	ClosedDueToCount, ClosedDueToSize     atomic.Int64
	ClosedDueToTimeForward                atomic.Int64
	ClosedDueToTimeBackward               atomic.Int64
	ClosedDueToMemoryThreshold            atomic.Int64
	ClosedDueToSchemaChange               atomic.Int64
	ArchivedDueToTimeBackward, Reopened   atomic.Int64
	KeptOpenDueToLargeMeasurements        atomic.Int64
	Commits, MeasurementsCommitted, Waits atomic.Int64
}

// Append adds the figures to b under mongod's names.
func (s *Stats) Append(b *bsoncore.DocumentBuilder) {
	b.AppendInt64("numBucketInserts", s.BucketInserts.Load()).
		AppendInt64("numBucketUpdates", s.BucketUpdates.Load()).
		AppendInt64("numBucketsOpenedDueToMetadata", s.OpenedDueToMetadata.Load()).
		AppendInt64("numBucketsClosedDueToCount", s.ClosedDueToCount.Load()).
		AppendInt64("numBucketsClosedDueToSchemaChange", s.ClosedDueToSchemaChange.Load()).
		AppendInt64("numBucketsClosedDueToSize", s.ClosedDueToSize.Load()).
		AppendInt64("numBucketsClosedDueToTimeForward", s.ClosedDueToTimeForward.Load()).
		AppendInt64("numBucketsClosedDueToTimeBackward", s.ClosedDueToTimeBackward.Load()).
		AppendInt64("numBucketsClosedDueToMemoryThreshold", s.ClosedDueToMemoryThreshold.Load()).
		AppendInt64("numBucketsArchivedDueToTimeBackward", s.ArchivedDueToTimeBackward.Load()).
		AppendInt64("numBucketsReopened", s.Reopened.Load()).
		AppendInt64("numBucketsKeptOpenDueToLargeMeasurements", s.KeptOpenDueToLargeMeasurements.Load())
	commits, n := s.Commits.Load(), s.MeasurementsCommitted.Load()
	avg := int64(0)
	if commits > 0 {
		avg = n / commits
	}
	b.AppendInt64("numCommits", commits).
		AppendInt64("numWaits", s.Waits.Load()).
		AppendInt64("numMeasurementsCommitted", n).
		AppendInt64("avgNumMeasurementsPerCommit", avg)
}
