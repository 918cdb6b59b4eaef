package migrate

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// typeOrder is MongoDB's canonical order of BSON types.
func typeOrder(t bson.Type) int {
	switch t {
	case bson.TypeMinKey:
		return 1
	case bson.TypeNull, bson.TypeUndefined:
		return 2
	case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
		return 3
	case bson.TypeString, bson.TypeSymbol:
		return 4
	case bson.TypeEmbeddedDocument:
		return 5
	case bson.TypeArray:
		return 6
	case bson.TypeBinary:
		return 7
	case bson.TypeObjectID:
		return 8
	case bson.TypeBoolean:
		return 9
	case bson.TypeDateTime:
		return 10
	case bson.TypeTimestamp:
		return 11
	case bson.TypeRegex:
		return 12
	case bson.TypeMaxKey:
		return 100
	}
	return 50
}

// compareValues orders two values as the servers sort them (simple
// collation), the order of a find sorted by _id.
func compareValues(a, b bson.RawValue) int {
	ta, tb := typeOrder(a.Type), typeOrder(b.Type)
	if ta != tb {
		return cmpInt(ta, tb)
	}
	switch ta {
	case 3:
		return compareNumbers(a, b)
	case 4:
		return strings.Compare(stringOf(a), stringOf(b))
	case 5, 6:
		return compareDocs(a.Value, b.Value, ta == 5)
	case 7:
		sa, da, _ := a.BinaryOK()
		sb, db, _ := b.BinaryOK()
		if len(da) != len(db) {
			return cmpInt(len(da), len(db))
		}
		if sa != sb {
			return cmpInt(int(sa), int(sb))
		}
		return bytes.Compare(da, db)
	case 8:
		return bytes.Compare(a.Value, b.Value)
	case 9:
		return cmpInt(int(a.Value[0]), int(b.Value[0]))
	case 10:
		return cmpInt64(a.DateTime(), b.DateTime())
	case 11:
		at, ai := a.Timestamp()
		bt, bi := b.Timestamp()
		if at != bt {
			return cmpInt64(int64(at), int64(bt))
		}
		return cmpInt64(int64(ai), int64(bi))
	}
	return bytes.Compare(a.Value, b.Value)
}

func stringOf(v bson.RawValue) string {
	if s, ok := v.StringValueOK(); ok {
		return s
	}
	s, _ := v.SymbolOK()
	return s
}

func compareNumbers(a, b bson.RawValue) int {
	ai, aInt := a.AsInt64OK()
	bi, bInt := b.AsInt64OK()
	if aInt && bInt && a.Type != bson.TypeDouble && b.Type != bson.TypeDouble {
		return cmpInt64(ai, bi)
	}
	fa, fb := toFloat(a), toFloat(b)
	switch {
	case math.IsNaN(fa) && math.IsNaN(fb):
		return 0
	case math.IsNaN(fa):
		return -1
	case math.IsNaN(fb):
		return 1
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

func toFloat(v bson.RawValue) float64 {
	switch v.Type {
	case bson.TypeDouble:
		return v.Double()
	case bson.TypeInt32:
		return float64(v.Int32())
	case bson.TypeInt64:
		return float64(v.Int64())
	case bson.TypeDecimal128:
		d := v.Decimal128()
		f, err := parseFloat(d.String())
		if err == nil {
			return f
		}
	}
	return math.NaN()
}

func compareDocs(a, b []byte, named bool) int {
	ea, _ := bson.Raw(a).Elements()
	eb, _ := bson.Raw(b).Elements()
	for i := 0; i < len(ea) && i < len(eb); i++ {
		va, vb := ea[i].Value(), eb[i].Value()
		if c := cmpInt(typeOrder(va.Type), typeOrder(vb.Type)); c != 0 {
			return c
		}
		if named {
			if c := strings.Compare(ea[i].Key(), eb[i].Key()); c != 0 {
				return c
			}
		}
		if c := compareValues(va, vb); c != 0 {
			return c
		}
	}
	return cmpInt(len(ea), len(eb))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
