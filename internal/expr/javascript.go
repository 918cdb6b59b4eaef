package expr

import (
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// $function, which runs server-side JavaScript, and $toHashedIndexKey,
// which needs mongod's hashed-index hash, are recognised and refused
// with NotImplemented rather than reported as unknown.

func init() {
	register(map[string]opParser{
		"$function":         refuseJS,
		"$toHashedIndexKey": refuseHashed,
	})
}

// ErrJavaScript returns the NotImplemented error of an operator that
// needs server-side JavaScript ($function, $where, and the $accumulator
// accumulator).
func ErrJavaScript(name string) error {
	return errs.New(errs.NotImplemented, "%s needs server-side JavaScript, which Lode does not run", name)
}

func refuseJS(name string, _ bsoncore.Value, _ *ParseContext) (Expr, error) {
	return nil, ErrJavaScript(name)
}

func refuseHashed(name string, _ bsoncore.Value, _ *ParseContext) (Expr, error) {
	return nil, errs.New(errs.NotImplemented, "%s is not supported by Lode: it needs the hash of hashed indexes, which Lode does not build", name)
}
