package server

import (
	"context"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdExplain, requires(explainNeeds), "explain").inAPIV1())
}

// cmdExplain explains find, count, distinct, update, delete, findAndModify
// and aggregate at the verbosities queryPlanner, executionStats and
// allPlansExecution (the default), in MongoDB 7.0's format. Writes are
// planned and, for the execution verbosities, their candidate search runs,
// but nothing is written.
func cmdExplain(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	var inner bsoncore.Document
	verbosity := engine.VerbosityAllPlansExecution
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		// explain.idl's one field besides the explained command; the
		// explained command's own fields are checked by its parser.
		return k == "verbosity", nil
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
	ex := lookupCommand(name).explain // explainer.go
	if ex == nil {
		ex = notExplained
	}
	if ex.self != nil {
		return ex.self(ctx, s, req, inner, verbosity)
	}
	collV := elems[0].Value()
	coll, ok := collV.StringValueOK()
	if !ok {
		return nil, errs.New(errs.InvalidNamespace, "collection name has invalid type %s", bsonutil.TypeName(collV.Type))
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		return explainOnView(ctx, s, req, name, ex, inner, verbosity) // views_agg.go
	}
	spec, err := explainSpec(s, req, name, ex, inner)
	if err != nil {
		return nil, err
	}
	spec.Verbosity = verbosity
	out, err := s.eng.Explain(ctx, req.DB, coll, spec)
	if err != nil {
		return nil, err
	}
	return explainReply(out, inner, req.DB), nil
}

// explainSpec parses the explained command inner (named name) with the
// command's own parser, as its explainer says, as mongod parses it with
// the command's IDL, so a bad argument fails the same way whether the
// command runs or is explained.
func explainSpec(s *Server, req *Request, name string, ex *explainer, inner bsoncore.Document) (engine.ExplainSpec, error) {
	if ex.plan == nil {
		return engine.ExplainSpec{}, errs.New(errs.CommandNotFound, "Explain failed due to unknown command: %s", name)
	}
	return ex.plan(s, req, &Request{Name: name, DB: req.DB, Cmd: inner, conn: req.conn})
}

// The explain plans of the commands explain explains, named by their
// descriptors' explainers. An update or delete is explained by its first
// statement.

func explainFind(s *Server, req, sub *Request) (engine.ExplainSpec, error) {
	var spec engine.ExplainSpec
	f, err := parseFind(sub, s.eng.Params().AllowDiskUseByDefault.Load())
	if err != nil {
		return spec, err
	}
	if f.collectionUUID != nil {
		if err := s.checkCollectionUUID(req.DB, f.coll, *f.collectionUUID); err != nil {
			return spec, err
		}
	}
	spec.Kind, spec.Find = engine.ExplainFindOp, f.spec
	return spec, nil
}

func explainCount(_ *Server, _, sub *Request) (engine.ExplainSpec, error) {
	var spec engine.ExplainSpec
	c, err := parseCount(sub)
	if err != nil {
		return spec, err
	}
	spec.Kind = engine.ExplainCountOp
	spec.Find = engine.FindSpec{Filter: c.filter, Skip: c.skip, Limit: c.limit, Hint: c.hint, Collation: c.collation}
	return spec, nil
}

func explainDistinct(_ *Server, _, sub *Request) (engine.ExplainSpec, error) {
	var spec engine.ExplainSpec
	d, err := parseDistinct(sub)
	if err != nil {
		return spec, err
	}
	spec.Kind, spec.Key, spec.Find.Filter = engine.ExplainDistinctOp, d.key, d.filter
	spec.Find.Collation = d.collation
	return spec, nil
}

func explainUpdate(_ *Server, _, sub *Request) (engine.ExplainSpec, error) {
	var spec engine.ExplainSpec
	_, specs, err := parseUpdate(sub)
	if err != nil {
		return spec, err
	}
	st := specs[0]
	spec.Kind, spec.Multi = engine.ExplainUpdateOp, st.Multi
	spec.Find = engine.FindSpec{Filter: st.Filter, Hint: st.Hint, Let: st.Let, Collation: st.Collation}
	return spec, nil
}

func explainDelete(_ *Server, _, sub *Request) (engine.ExplainSpec, error) {
	var spec engine.ExplainSpec
	_, specs, err := parseDelete(sub)
	if err != nil {
		return spec, err
	}
	st := specs[0]
	spec.Kind, spec.Multi = engine.ExplainDeleteOp, st.Limit == 0
	spec.Find = engine.FindSpec{Filter: st.Filter, Hint: st.Hint, Let: st.Let, Collation: st.Collation}
	return spec, nil
}

func explainFindAndModify(_ *Server, _, sub *Request) (engine.ExplainSpec, error) {
	var spec engine.ExplainSpec
	_, f, err := parseFindAndModify(sub)
	if err != nil {
		return spec, err
	}
	spec.Kind = engine.ExplainUpdateOp
	if f.Remove {
		spec.Kind = engine.ExplainDeleteOp
	}
	spec.Find = engine.FindSpec{Filter: f.Query, Sort: f.Sort, Hint: f.Hint, Let: f.Let, Collation: f.Collation}
	return spec, nil
}

// explainReply appends command and serverInfo to an engine explain.
func explainReply(out, inner bsoncore.Document, db string) bsoncore.Document {
	elems, _ := out.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elems {
		b.AppendValue(e.Key(), e.Value())
	}
	cmd := redactCommand(inner) // redact.go
	if _, err := inner.LookupErr("$db"); err != nil {
		cmd = explainAppendField(cmd, "$db", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, db)})
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
	h := lookupCommand("aggregate").handler
	if h == nil {
		return nil, errs.New(errs.CommandNotFound, "no such command: 'aggregate'")
	}
	out, err := h(ctx, s, sub)
	if err != nil {
		return nil, err
	}
	return aggExplainReply(out, inner, req.DB), nil
}
