package storage

import (
	"fmt"
	"math"
)

// MinCacheSizeGB and MaxCacheSizeGB bound a configured block cache size,
// as mongod bounds --wiredTigerCacheSizeGB (0.25 to 10000).
const (
	MinCacheSizeGB = 0.25
	MaxCacheSizeGB = 10000
)

// CacheSizeFromGB converts a cache size in GiB, as `lode serve
// --cache-size-gb` and lode.WithCacheSizeGB take it (mongod's
// --wiredTigerCacheSizeGB), to bytes for Options.CacheSize. Zero means the
// default (0 bytes); a value outside [MinCacheSizeGB, MaxCacheSizeGB] or
// not a number is an error that names the range.
func CacheSizeFromGB(gb float64) (int64, error) {
	if gb == 0 {
		return 0, nil
	}
	if math.IsNaN(gb) || gb < MinCacheSizeGB || gb > MaxCacheSizeGB {
		return 0, fmt.Errorf("cache size %v GB: want between %v and %v GB, or 0 for the default (%v GB)",
			gb, MinCacheSizeGB, MaxCacheSizeGB, float64(DefaultCacheSize)/(1<<30))
	}
	return int64(gb * (1 << 30)), nil
}
