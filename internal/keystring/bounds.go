package keystring

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// Index scans work on byte ranges [start, end) of keys. A key is
// prefix + encoding of field k + encodings of later fields (+ recordID),
// where prefix holds the index id and the encodings of the fixed fields
// 0..k-1. Because encodings are prefix-free, the keys whose field k equals
// v are exactly the keys starting with prefix+enc(v), and those keys form
// one contiguous range:
//
//	field k >= v   starts at  prefix+enc(v)
//	field k >  v   starts at  PrefixEnd(prefix+enc(v))
//	field k <  v   ends at    prefix+enc(v)            (exclusive)
//	field k <= v   ends at    PrefixEnd(prefix+enc(v)) (exclusive)
//
// For a descending field enc reverses the order, so the low value bound
// gives the end of the byte range and the high value bound its start.
// Unbounded sides use MinKey and MaxKey inclusively (every value lies in
// [MinKey, MaxKey]); a bound restricted to a type bracket, as MongoDB's
// planner builds for $gt: 5 (that is (5, Infinity]), works the same way.

// PrefixEnd returns the smallest byte string that is greater than every
// string starting with prefix, or nil when there is none (prefix is empty
// or all 0xFF), meaning the range is unbounded above.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return nil
}

// Interval returns the byte range [start, end) of the keys that begin with
// prefix and whose next field (encoded in the given direction) lies
// between lo and hi, each bound inclusive or exclusive as told. A nil end
// means no upper limit. The result does not alias prefix. When the value
// interval is empty the range may be empty (start >= end).
func Interval(prefix []byte, lo, hi bsoncore.Value, loInclusive, hiInclusive, descending bool) (start, end []byte) {
	if descending {
		// In byte order the high value comes first.
		lo, hi = hi, lo
		loInclusive, hiInclusive = hiInclusive, loInclusive
	}
	start = AppendValue(append([]byte(nil), prefix...), lo, descending)
	if !loInclusive {
		start = PrefixEnd(start)
	}
	end = AppendValue(append([]byte(nil), prefix...), hi, descending)
	if hiInclusive {
		end = PrefixEnd(end)
	}
	return start, end
}

// Point returns the byte range [start, end) of the keys that begin with
// prefix followed by v in the given direction: the keys whose next field
// equals v (in MongoDB's order, so 1, 1.0 and NumberLong(1) all match).
func Point(prefix []byte, v bsoncore.Value, descending bool) (start, end []byte) {
	start = AppendValue(append([]byte(nil), prefix...), v, descending)
	return start, PrefixEnd(start)
}
