package server

import (
	"context"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

func init() { register(cmdExplain, "explain") }

// cmdExplain explains find, count, distinct, update, delete, findAndModify
// and aggregate at the verbosities queryPlanner, executionStats and
// allPlansExecution (the default), in MongoDB 7.0's format. Writes are
// planned and, for the execution verbosities, their candidate search runs,
// but nothing is written.
func cmdExplain(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	var inner bsoncore.Document
	verbosity := engine.VerbosityAllPlansExecution
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	first := req.Cmd.Index(0).Value()
	d, ok := first.DocumentOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "BSON field 'explain.explain' is the wrong type '%s', expected type 'object'", bsonutil.TypeName(first.Type))
	}
	inner = d
	if v, err := req.Cmd.LookupErr("verbosity"); err == nil {
		str, ok := v.StringValueOK()
		if !ok {
			return nil, wrongType(req.Name, "verbosity", v, "string")
		}
		verbosity = str
	}
	elems, err := inner.Elements()
	if err != nil || len(elems) == 0 {
		return nil, errs.New(errs.FailedToParse, "explain command requires a nested object")
	}
	name := elems[0].Key()
	collV := elems[0].Value()
	coll, ok := collV.StringValueOK()
	if !ok && name != "aggregate" {
		return nil, errs.New(errs.InvalidNamespace, "collection name has invalid type %s", bsonutil.TypeName(collV.Type))
	}
	spec := engine.ExplainSpec{Verbosity: verbosity}
	switch name {
	case "aggregate":
		return explainAggregate(ctx, s, req, inner, verbosity)
	case "find":
		spec.Kind = engine.ExplainFindOp
		err = explainFindArgs(inner, &spec.Find)
	case "count":
		spec.Kind = engine.ExplainCountOp
		err = eachInner(inner, func(k string, v bsoncore.Value) error {
			var err error
			switch k {
			case "query":
				if v.Type != bsoncore.TypeNull {
					spec.Find.Filter, err = argDoc("count", k, v)
				}
			case "skip":
				spec.Find.Skip, err = argInt64("count", k, v)
			case "limit":
				spec.Find.Limit, err = argInt64("count", k, v)
			case "hint":
				spec.Find.Hint = v
			}
			return err
		})
	case "distinct":
		spec.Kind = engine.ExplainDistinctOp
		err = eachInner(inner, func(k string, v bsoncore.Value) error {
			var err error
			switch k {
			case "key":
				spec.Key, err = argString("distinct", k, v)
			case "query":
				if v.Type != bsoncore.TypeNull {
					spec.Find.Filter, err = argDoc("distinct", k, v)
				}
			}
			return err
		})
	case "update", "delete":
		spec.Kind = engine.ExplainUpdateOp
		field := "updates"
		if name == "delete" {
			spec.Kind = engine.ExplainDeleteOp
			field = "deletes"
		}
		v, lerr := inner.LookupErr(field)
		if lerr != nil || v.Type != bsoncore.TypeArray {
			return nil, errs.New(errs.FailedToParse, "explain %s requires a '%s' array", name, field)
		}
		stmts, _ := v.Array().Values()
		if len(stmts) == 0 || stmts[0].Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.InvalidLength, "Write batch sizes must be between 1 and 100000. Got 0 operations.")
		}
		st := stmts[0].Document()
		if q, err := st.LookupErr("q"); err == nil && q.Type == bsoncore.TypeEmbeddedDocument {
			spec.Find.Filter = q.Document()
		}
		if h, err := st.LookupErr("hint"); err == nil {
			spec.Find.Hint = h
		}
		if m, err := st.LookupErr("multi"); err == nil {
			spec.Multi = expr.Truthy(m)
		}
		if l, err := inner.LookupErr("let"); err == nil && l.Type == bsoncore.TypeEmbeddedDocument {
			spec.Find.Let = l.Document()
		}
		if l, err := st.LookupErr("limit"); err == nil {
			n, _ := asInt64(l)
			spec.Multi = n == 0
		}
	case "findAndModify", "findandmodify":
		spec.Kind = engine.ExplainUpdateOp
		err = eachInner(inner, func(k string, v bsoncore.Value) error {
			var err error
			switch k {
			case "query":
				if v.Type != bsoncore.TypeNull {
					spec.Find.Filter, err = argDoc(name, k, v)
				}
			case "sort":
				if v.Type != bsoncore.TypeNull {
					spec.Find.Sort, err = argDoc(name, k, v)
				}
			case "remove":
				if expr.Truthy(v) {
					spec.Kind = engine.ExplainDeleteOp
				}
			case "hint":
				spec.Find.Hint = v
			case "let":
				spec.Find.Let, err = argDoc(name, k, v)
			}
			return err
		})
	default:
		return nil, errs.New(errs.CommandNotFound, "Explain failed due to unknown command: %s", name)
	}
	if err != nil {
		return nil, err
	}
	out, err := s.eng.Explain(ctx, req.DB, coll, spec)
	if err != nil {
		return nil, err
	}
	return explainReply(out, inner, req.DB), nil
}

// explainFindArgs reads a find command's fields into spec.
func explainFindArgs(inner bsoncore.Document, spec *engine.FindSpec) error {
	spec.AllowDiskUse = allowDiskUseByDefault.Load()
	return eachInner(inner, func(k string, v bsoncore.Value) error {
		var err error
		switch k {
		case "filter":
			spec.Filter, err = argDoc("find", k, v)
		case "sort":
			spec.Sort, err = argDoc("find", k, v)
		case "projection":
			spec.Projection, err = argDoc("find", k, v)
		case "hint":
			spec.Hint = v
		case "skip":
			spec.Skip, err = nonNegative("find", k, v)
		case "limit":
			spec.Limit, err = argInt64("find", k, v)
		case "allowDiskUse":
			spec.AllowDiskUse, err = argBool("find", k, v)
		case "let":
			spec.Let, err = argDoc("find", k, v)
		}
		return err
	})
}

// eachInner calls fn for each field of an explained command after its
// name.
func eachInner(d bsoncore.Document, fn func(k string, v bsoncore.Value) error) error {
	elems, err := d.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid command document: %v", err)
	}
	for _, e := range elems[1:] {
		if err := fn(e.Key(), e.Value()); err != nil {
			return err
		}
	}
	return nil
}

// explainReply appends command and serverInfo to an engine explain.
func explainReply(out, inner bsoncore.Document, db string) bsoncore.Document {
	elems, _ := out.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elems {
		b.AppendValue(e.Key(), e.Value())
	}
	cmd := inner
	if _, err := inner.LookupErr("$db"); err != nil {
		cmd = explainAppendField(inner, "$db", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, db)})
	}
	b.AppendDocument("command", cmd)
	b.AppendDocument("serverInfo", serverInfoDoc())
	b.AppendDocument("serverParameters", serverParametersDoc())
	return b.Build()
}

// serverParametersDoc is the serverParameters section of explain.
func serverParametersDoc() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendInt32("internalQueryFacetBufferSizeBytes", 104857600).
		AppendInt32("internalQueryFacetMaxOutputDocSizeBytes", 104857600).
		AppendInt32("internalLookupStageIntermediateDocumentMaxSizeBytes", 104857600).
		AppendInt32("internalDocumentSourceGroupMaxMemoryBytes", 104857600).
		AppendInt32("internalQueryMaxBlockingSortMemoryUsageBytes", 104857600).
		AppendInt32("internalQueryProhibitBlockingMergeOnMongoS", 0).
		AppendInt32("internalQueryMaxAddToSetBytes", 104857600).
		AppendInt32("internalDocumentSourceSetWindowFieldsMaxMemoryBytes", 104857600).
		AppendString("internalQueryFrameworkControl", "forceClassicEngine").Build()
}

func explainAppendField(d bsoncore.Document, k string, v bsoncore.Value) bsoncore.Document {
	out := append(bsoncore.Document(nil), d[:len(d)-1]...)
	out = bsoncore.AppendValueElement(out, k, v)
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}

func serverInfoDoc() bsoncore.Document {
	port := 27017
	return bsoncore.NewDocumentBuilder().
		AppendString("host", "localhost").
		AppendInt32("port", int32(port)).
		AppendString("version", MongoVersion).
		AppendString("gitVersion", "lode-"+strconv.Itoa(MaxWireVersion)).Build()
}

// explainAggregate runs the aggregate command with explain: true at the
// given verbosity (cmd_explain_agg.go).
func explainAggregate(ctx context.Context, s *Server, req *Request, inner bsoncore.Document, verbosity string) (bsoncore.Document, error) {
	if err := checkVerbosity(verbosity); err != nil {
		return nil, err
	}
	cmd := explainAppendField(inner, "explain", bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, true)})
	if _, err := cmd.LookupErr("$db"); err != nil {
		cmd = explainAppendField(cmd, "$db", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, req.DB)})
	}
	// explain:true and cursor cannot go together in aggregate: drop cursor.
	elems, _ := cmd.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elems {
		if e.Key() == "cursor" {
			continue
		}
		b.AppendValue(e.Key(), e.Value())
	}
	sub := &Request{Name: "aggregate", DB: req.DB, Cmd: b.Build(), conn: req.conn, explainVerbosity: verbosity}
	h := commands["aggregate"]
	if h == nil {
		return nil, errs.New(errs.CommandNotFound, "no such command: 'aggregate'")
	}
	out, err := h(ctx, s, sub)
	if err != nil {
		return nil, err
	}
	return aggExplainReply(out, inner, req.DB), nil
}
