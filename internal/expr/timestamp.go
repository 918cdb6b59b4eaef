package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// $tsSecond and $tsIncrement return the seconds and the increment of a
// timestamp as longs; null or missing gives null.

func init() {
	register(map[string]opParser{
		"$tsSecond":    tsPart(errs.Location5687301, func(t, _ uint32) int64 { return int64(t) }),
		"$tsIncrement": tsPart(errs.Location5687302, func(_, i uint32) int64 { return int64(i) }),
	})
}

func tsPart(code errs.Code, part func(t, i uint32) int64) opParser {
	return unaryNullable(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
		if v.Type != bsoncore.TypeTimestamp {
			// mongod's message starts with a space.
			return Missing, errs.New(code, " Argument to %s must be a timestamp, but is %s", name, bsonutil.TypeName(v.Type))
		}
		t, i := v.Timestamp()
		return Int64(part(t, i)), nil
	})
}
