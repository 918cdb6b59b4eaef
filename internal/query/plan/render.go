package plan

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// BoundsDoc renders index bounds as explain's indexBounds: for each
// field, its intervals as strings in scan order, such as "[5, 5]",
// "(5, inf.0]" or "[MaxKey, MinKey]" for a descending field.
func BoundsDoc(fields []FieldBounds, direction int) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, f := range fields {
		ab := bsoncore.NewArrayBuilder()
		for _, s := range IntervalStrings(f, direction) {
			ab.AppendString(s)
		}
		b.AppendArray(f.Path, ab.Build())
	}
	return b.Build()
}

// IntervalStrings renders one field's intervals in scan order.
func IntervalStrings(f FieldBounds, direction int) []string {
	rev := f.Desc != (direction < 0)
	out := make([]string, 0, len(f.OIL))
	for i := range f.OIL {
		iv := f.OIL[i]
		if rev {
			iv = f.OIL[len(f.OIL)-1-i]
			out = append(out, intervalString(iv.Hi, iv.Lo, iv.HiInc, iv.LoInc))
		} else {
			out = append(out, intervalString(iv.Lo, iv.Hi, iv.LoInc, iv.HiInc))
		}
	}
	return out
}

func intervalString(a, b bsoncore.Value, aInc, bInc bool) string {
	var sb strings.Builder
	if aInc {
		sb.WriteByte('[')
	} else {
		sb.WriteByte('(')
	}
	bsonutil.AppendValue(&sb, a, boundsStyle)
	sb.WriteString(", ")
	bsonutil.AppendValue(&sb, b, boundsStyle)
	if bInc {
		sb.WriteByte(']')
	} else {
		sb.WriteByte(')')
	}
	return sb.String()
}

// boundsStyle is how explain's index bounds print values: mongod's
// BSONElement::toString form with integral doubles in fixed notation, and
// decimals, symbols and code as extended JSON, as they always have (see
// bsonutil.Style).
var boundsStyle = bsonutil.Style{FixedIntegral: true, JSONCode: true, JSONDecimal: true}
