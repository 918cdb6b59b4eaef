package expr

import (
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// $function, which runs server-side JavaScript, is recognised and refused
// with NotImplemented rather than reported as unknown.

func init() {
	register(map[string]opParser{
		"$function": refuseJS,
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
