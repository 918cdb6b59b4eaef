package server

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The Stable API (mongod 5.0+): a command may declare apiVersion "1",
// and with it apiStrict (refuse what is not in API Version 1, 323) and
// apiDeprecationErrors (refuse what API Version 1 deprecates, 324).

// apiV1UnimplementedStages are stages mongod registers as never in API
// Version 1 that Lode does not implement: apiStrict refuses them before
// the parser calls them unknown. The stages Lode implements say whether
// they are in API Version 1 in their registry entry (agg.StageTraits).
var apiV1UnimplementedStages = map[string]bool{
	"$listCatalog": true,
}

// checkAPIParams validates a command's Stable API parameters and applies
// apiStrict and apiDeprecationErrors.
func checkAPIParams(req *Request) error {
	var a apiParams
	var err error
	if req.gen.ok {
		err = req.gen.each(req.Cmd, false, func(g genArg, v bsoncore.Value) error {
			return a.set(genArgNames[g], v)
		}, argAPIVersion, argAPIStrict, argAPIDeprecationErrors)
	} else {
		err = bsonutil.EachElement(req.Cmd, func(el bsoncore.Element) error {
			return a.set(el.Key(), el.Value())
		})
	}
	version, hasVersion := a.version, a.hasVersion
	strict, deprecErrs := a.strict, a.deprecErrs
	hasStrict, hasDeprecE := a.hasStrict, a.hasDeprecE
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return err
		}
		return nil // the handler reports a malformed document
	}
	if !hasVersion {
		if hasStrict || hasDeprecE {
			return errs.New(errs.Location4886600, "Provided apiStrict and/or apiDeprecationErrors without passing apiVersion")
		}
		return nil
	}
	if version != "1" {
		return errs.New(errs.APIVersionError, "API version must be \"1\"")
	}
	api := req.command().api
	if strict && api != apiV1 && api != apiV1Deprecated {
		return errs.New(errs.APIStrictError, "Provided apiStrict:true, but the command %s is not in API Version 1. Information on supported commands and migrations in API Version 1 can be found at https://dochub.mongodb.org/core/manual-versioned-api", req.Name)
	}
	if deprecErrs && api == apiV1Deprecated {
		return errs.New(errs.APIDeprecationError, "Provided apiDeprecationErrors:true, but the command %s is deprecated in API Version 1", req.Name)
	}
	if strict {
		if unstable := req.command().apiUnstable; unstable != nil {
			elems, _ := req.Cmd.Elements()
			for _, el := range elems[1:] {
				if unstable[el.Key()] {
					return errs.New(errs.APIStrictError, "BSON field '%s.%s' is not allowed with apiStrict:true.", req.Name, el.Key())
				}
			}
		}
	}
	if c := req.command(); strict && c.apiStrictArgs != nil {
		return c.apiStrictArgs(req)
	}
	return nil
}

// apiParams are the API version fields of a command.
type apiParams struct {
	version               string
	hasVersion            bool
	strict, deprecErrs    bool
	hasStrict, hasDeprecE bool
}

// set reads field k of the command when it is an API version field.
func (a *apiParams) set(k string, v bsoncore.Value) error {
	switch k {
	case "apiVersion":
		s, ok := v.StringValueOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "BSON field 'apiVersion' is the wrong type '%s', expected type 'string'", bsonutil.TypeName(v.Type))
		}
		a.version, a.hasVersion = s, true
	case "apiStrict":
		b, ok := v.BooleanOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "BSON field 'apiStrict' is the wrong type '%s', expected type 'bool'", bsonutil.TypeName(v.Type))
		}
		a.strict, a.hasStrict = b, true
	case "apiDeprecationErrors":
		b, ok := v.BooleanOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "BSON field 'apiDeprecationErrors' is the wrong type '%s', expected type 'bool'", bsonutil.TypeName(v.Type))
		}
		a.deprecErrs, a.hasDeprecE = b, true
	}
	return nil
}

// strictPipeline refuses the stages API Version 1 excludes, in the
// pipeline and the sub-pipelines its stages declare ($lookup's,
// $unionWith's, $facet's), at any depth.
func strictPipeline(p bsoncore.Array) error {
	return agg.WalkPipeline(agg.Namespace{}, docs(p), func(v agg.StageVisit) error {
		if v.Name == "" {
			return nil
		}
		if st, known := agg.StageTraits(v.Name); (known && !st.APIV1) || (!known && apiV1UnimplementedStages[v.Name]) {
			return errs.New(errs.APIStrictError, "%s is not allowed with 'apiStrict: true' in API Version 1", v.Name)
		}
		return nil
	})
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
