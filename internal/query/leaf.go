package query

import (
	"math"

	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ExistsNode is {Path: {$exists: true}}: the path reaches at least one
// value. {$exists: false} is a NotNode over an ExistsNode.
type ExistsNode struct {
	pathed
}

// TypeNode is {Path: {$type: ...}}: the path yields a value of one of Types,
// or any number when Number is set (the "number" alias).
type TypeNode struct {
	pathed
	Types  []bsoncore.Type
	Number bool
}

// SizeNode is {Path: {$size: Size}}: the value at the path is an array of
// exactly Size elements. Arrays at the end of the path are not traversed.
type SizeNode struct {
	pathed
	Size int
}

// ModNode is {Path: {$mod: [Divisor, Remainder]}}: a number, truncated to
// an integer, leaves Remainder when divided by Divisor.
type ModNode struct {
	pathed
	Divisor   int64
	Remainder int64
}

// BitsOp is the operator of a BitsNode.
type BitsOp int

// Bit test operators.
const (
	BitsAllSet BitsOp = iota
	BitsAnySet
	BitsAllClear
	BitsAnyClear
)

// String returns the operator's MongoDB name.
func (o BitsOp) String() string {
	return [...]string{"$bitsAllSet", "$bitsAnySet", "$bitsAllClear", "$bitsAnyClear"}[o]
}

// BitsNode is a bit test ($bitsAllSet and friends). Positions lists the
// tested bit positions (a numeric or BinData mask is converted to them).
// It matches integral numbers representable as int64 (two's complement,
// sign-extended) and BinData (little-endian bit order).
type BitsNode struct {
	pathed
	Op        BitsOp
	Positions []uint32
}

func (n *ExistsNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *ExistsNode) matchValue(v bsoncore.Value, _ *int) bool { return v.Type != 0 }

func (n *TypeNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *TypeNode) matchValue(v bsoncore.Value, _ *int) bool {
	if v.Type == 0 {
		return false
	}
	if n.Number && bsonutil.IsNumber(v.Type) {
		return true
	}
	for _, t := range n.Types {
		if t == v.Type {
			return true
		}
	}
	return false
}

func (n *SizeNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, false, n, pos, -1)
}

func (n *SizeNode) matchValue(v bsoncore.Value, _ *int) bool {
	if v.Type != bsoncore.TypeArray {
		return false
	}
	c := 0
	it := newElemIter(v.Data)
	for {
		if _, _, ok := it.next(); !ok {
			break
		}
		c++
		if c > n.Size {
			return false
		}
	}
	return c == n.Size
}

func (n *ModNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *ModNode) matchValue(v bsoncore.Value, _ *int) bool {
	var x int64
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		x = bsonutil.AsInt64(v)
	case bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		f := bsonutil.AsFloat64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
		f = math.Trunc(f)
		if f >= 9223372036854775807.0 || f < -9223372036854775808.0 {
			return false
		}
		x = int64(f)
	default:
		return false
	}
	return safeMod(x, n.Divisor) == n.Remainder
}

// safeMod is x % d without the overflow trap of MinInt64 % -1.
func safeMod(x, d int64) int64 {
	if d == -1 {
		return 0
	}
	return x % d
}

func (n *BitsNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *BitsNode) matchValue(v bsoncore.Value, _ *int) bool {
	var bit func(p uint32) bool
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		x, ok := integral64(v)
		if !ok {
			return false
		}
		return n.testInt(x)
	case bsoncore.TypeBinary:
		_, data, ok := v.BinaryOK()
		if !ok {
			return false
		}
		bit = func(p uint32) bool {
			b := p / 8
			if int(b) >= len(data) {
				return false
			}
			return data[b]&(1<<(p%8)) != 0
		}
	default:
		return false
	}
	return n.test(bit)
}

// testInt tests the positions against a sign-extended int64.
func (n *BitsNode) testInt(x int64) bool {
	return n.test(func(p uint32) bool {
		if p >= 64 {
			return x < 0
		}
		return uint64(x)&(1<<p) != 0
	})
}

func (n *BitsNode) test(bit func(uint32) bool) bool {
	switch n.Op {
	case BitsAllSet:
		for _, p := range n.Positions {
			if !bit(p) {
				return false
			}
		}
		return true
	case BitsAllClear:
		for _, p := range n.Positions {
			if bit(p) {
				return false
			}
		}
		return true
	case BitsAnySet:
		for _, p := range n.Positions {
			if bit(p) {
				return true
			}
		}
		return false
	case BitsAnyClear:
		for _, p := range n.Positions {
			if !bit(p) {
				return true
			}
		}
		return false
	}
	return false
}

// integral64 returns a numeric value as int64 when it is integral and
// representable.
func integral64(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil.AsInt64(v), true
	case bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		f := bsonutil.AsFloat64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
			return 0, false
		}
		if f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}
