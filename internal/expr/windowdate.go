package expr

import "time"

// AddDateUnits adds amount units ("year" .. "millisecond") to a date in
// milliseconds since the epoch, in UTC, as $dateAdd does. The window
// functions of $setWindowFields use it for range bounds with a unit.
func AddDateUnits(ms int64, unit string, amount int64) (int64, error) {
	return addUnits(ms, unit, amount, time.UTC)
}

// ValidTimeUnit reports whether u is one of MongoDB's time units.
func ValidTimeUnit(u string) bool { return validUnit(u) }

// UnitMillis returns the fixed length of a time unit of a week or less in
// milliseconds, and false for month, quarter and year.
func UnitMillis(u string) (int64, bool) {
	ms, ok := unitMillis[u]
	return ms, ok
}
