package expr

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// MaxRangeBytes is mongod's internalQueryMaxRangeBytes: the memory a
// $range may need, estimated as mongod does (rangeMemory), before it
// fails with ExceededMemoryLimit.
const MaxRangeBytes = 100 << 20

// rangeMemory is mongod's estimate of the memory of $range's result: a
// vector (24 bytes) of length Values of 16 bytes each, where length is
// 1 + (end-start)/step, or 0 when that quotient is negative.
func rangeMemory(start, end, step int64) int64 {
	steps := (end - start) / step
	length := int64(0)
	if steps >= 0 {
		length = 1 + steps
	}
	return 24 + length*16
}

// rangeMemoryErr is $range's error past MaxRangeBytes.
func rangeMemoryErr(need int64) error {
	return errs.New(errs.ExceededMemoryLimit, "$range would use too much memory (%d bytes) and cannot spill to disk. Memory limit: %d bytes", need, MaxRangeBytes)
}

// checkStringLen refuses a string result of n bytes as mongod's
// RCString::create does: its 16-byte header, the bytes and a NUL must
// stay under 16 MiB (16493).
func checkStringLen(n int) error {
	if n+17 >= 16<<20 {
		return errs.New(errs.Location16493, "Tried to create string longer than 16MB")
	}
	return nil
}

// MaxArrayBytes bounds one array or document an expression builds
// ($map, $concatArrays, $zip, array and object literals): mongod holds
// such values as vectors of Values and relies on interrupts alone, Lode
// encodes them as BSON, whose length must fit in 32 bits, and refuses
// them past this size with ExceededMemoryLimit (a Lode limit, see
// compatibility.md).
const MaxArrayBytes = 100 << 20

// budgetCheckBytes is the size from which a value being built is also
// checked against the instance's memory budget (Vars.SetBudget): smaller
// ones are below membudget's floor of what needs no reservation.
const budgetCheckBytes = 16 << 20

// checkBuilt fails once a value op is building has reached n bytes past
// MaxArrayBytes, or past budgetCheckBytes with the memory budget unable
// to hold it (ExceededMemoryLimit either way). It is called after each
// append, so a value stops within one element of the bound.
func (vs *Vars) checkBuilt(op string, n int) error {
	if n <= budgetCheckBytes {
		return nil
	}
	if n > MaxArrayBytes {
		return arrayMemoryErr(op)
	}
	if vs != nil && vs.budget != nil {
		if lim, used := vs.budget.Limit(), vs.budget.Used(); lim > 0 && used+int64(n) > lim {
			return errs.New(errs.ExceededMemoryLimit, "%s would use too much memory (%d bytes) and exceed the server's memory budget (%d bytes in use of %d)", op, n, used, lim)
		}
	}
	return nil
}

// arrayMemoryErr is the error of an expression whose array result grew
// past MaxArrayBytes.
func arrayMemoryErr(op string) error {
	return errs.New(errs.ExceededMemoryLimit, "%s would use too much memory (more than %d bytes for one array) and cannot spill to disk. Memory limit: %d bytes", op, MaxArrayBytes, MaxArrayBytes)
}

// arrayLenHint estimates the element count of array v from its size
// (about 8 bytes an element: type, a short name and its NUL, a small
// value), for tickN: loops such as the sorts of the set operators count
// their elements without reading them.
func arrayLenHint(v bsoncore.Value) int { return len(v.Data) / 8 }
