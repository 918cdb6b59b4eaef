package keystring

import (
	"bytes"
	"math"
	"math/big"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// refCompare is the test oracle: MongoDB's documented comparison order
// with exact numeric comparison. It follows bsonutil.Compare except that
// numbers are compared exactly with big.Rat (see the report on bsonutil's
// decimal128 precision).
func refCompare(a, b bsoncore.Value) int {
	oa, ob := bsonutil.TypeOrder(a.Type), bsonutil.TypeOrder(b.Type)
	if oa != ob {
		return sign(oa - ob)
	}
	switch oa {
	case bsonutil.OrderNumber:
		return refCompareNumbers(a, b)
	case bsonutil.OrderObject, bsonutil.OrderArray:
		return refCompareDocs(a.Data, b.Data)
	case bsonutil.OrderCodeScope:
		ca, sa := a.CodeWithScope()
		cb, sb := b.CodeWithScope()
		if c := bytes.Compare([]byte(ca), []byte(cb)); c != 0 {
			return c
		}
		return refCompareDocs(sa, sb)
	}
	return bsonutil.Compare(a, b)
}

func refCompareDocs(a, b []byte) int {
	ea, _ := bsoncore.Document(a).Elements()
	eb, _ := bsoncore.Document(b).Elements()
	for i := 0; i < len(ea) && i < len(eb); i++ {
		va, vb := ea[i].Value(), eb[i].Value()
		if c := sign(bsonutil.TypeOrder(va.Type) - bsonutil.TypeOrder(vb.Type)); c != 0 {
			return c
		}
		if c := bytes.Compare(ea[i].KeyBytes(), eb[i].KeyBytes()); c != 0 {
			return c
		}
		if c := refCompare(va, vb); c != 0 {
			return c
		}
	}
	return sign(len(ea) - len(eb))
}

// numClass: 0 NaN, 1 -Inf, 2 finite, 3 +Inf.
func refNum(v bsoncore.Value) (class int, r *big.Rat) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return 2, new(big.Rat).SetInt64(int64(v.Int32()))
	case bsoncore.TypeInt64:
		return 2, new(big.Rat).SetInt64(v.Int64())
	case bsoncore.TypeDouble:
		x := v.Double()
		switch {
		case math.IsNaN(x):
			return 0, nil
		case math.IsInf(x, -1):
			return 1, nil
		case math.IsInf(x, 1):
			return 3, nil
		}
		return 2, new(big.Rat).SetFloat64(x)
	}
	d := bson.NewDecimal128(v.Decimal128())
	if d.IsNaN() {
		return 0, nil
	}
	if d.IsInf() != 0 {
		return 2 + d.IsInf(), nil
	}
	bi, exp, err := d.BigInt()
	if err != nil {
		panic(err)
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	if exp >= 0 {
		return 2, new(big.Rat).SetInt(bi.Mul(bi, p))
	}
	return 2, new(big.Rat).SetFrac(bi, p)
}

func refCompareNumbers(a, b bsoncore.Value) int {
	ca, ra := refNum(a)
	cb, rb := refNum(b)
	if ca != cb || ca != 2 {
		return sign(ca - cb)
	}
	return ra.Cmp(rb)
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
