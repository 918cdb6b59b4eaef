package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdLodeWhatIf, requires(collNeeds(auth.ActFind)), "lodeWhatIf"))
}

// cmdLodeWhatIf is Lode's own command behind `lode advise`: it plans a
// query over the collection's indexes plus hypothetical ones (never
// built) and returns the estimated figures of the plan Lode would choose
// (engine.WhatIf). mongod has no such command.
//
//	{lodeWhatIf: <coll>, filter: {...}, sort: {...}, limit: n, count: bool,
//	 find: bool, hypotheticalIndexes: [{key: {...}, name: "..."}, ...]}
//
// reply: {chosen: {planSummary, index, hypothetical, blockingSort,
// keysExamined, docsExamined, nReturned}, candidates: [...], docs,
// sampled, indexSizes: {name: bytes}}.
func cmdLodeWhatIf(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err
	}
	var q engine.WhatIfQuery
	var hyp []engine.IndexSpec
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "filter":
			q.Filter, err = argDoc(req.Name, k, v)
		case "sort":
			q.Sort, err = argDoc(req.Name, k, v)
		case "limit":
			q.Limit, err = nonNegative(req.Name, k, v)
		case "count":
			q.Count, err = argBool(req.Name, k, v)
		case "find":
			q.Find, err = argBool(req.Name, k, v)
		case "hypotheticalIndexes":
			var specs []bsoncore.Document
			if specs, err = argDocArray(req.Name, k, v); err != nil {
				return true, err
			}
			for _, d := range specs {
				key, ok := d.Lookup("key").DocumentOK()
				if !ok {
					return true, errs.New(errs.BadValue, "lodeWhatIf: each hypothetical index needs a key document")
				}
				name, _ := d.Lookup("name").StringValueOK()
				hyp = append(hyp, engine.IndexSpec{Name: name, Key: key})
			}
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	res, err := s.eng.WhatIf(ctx, req.DB, coll, q, hyp)
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder().AppendDocument("chosen", whatIfPlanDoc(res.Chosen))
	ab := bsoncore.NewArrayBuilder()
	for _, c := range res.Candidates {
		ab.AppendDocument(whatIfPlanDoc(c))
	}
	sizes := bsoncore.NewDocumentBuilder()
	for _, spec := range hyp {
		name := spec.Name
		if name == "" {
			name = engine.DefaultIndexName(spec.Key)
		}
		sizes.AppendInt64(name, res.IndexBytes[name])
	}
	return b.AppendArray("candidates", ab.Build()).
		AppendInt64("docs", res.Docs).
		AppendInt32("sampled", int32(res.Sampled)).
		AppendDocument("indexSizes", sizes.Build()).
		Build(), nil
}

func whatIfPlanDoc(p engine.WhatIfPlan) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendString("planSummary", p.Summary).
		AppendString("index", p.Index).
		AppendBoolean("hypothetical", p.Hypothetical).
		AppendBoolean("blockingSort", p.BlockingSort).
		AppendDouble("keysExamined", p.KeysExamined).
		AppendDouble("docsExamined", p.DocsExamined).
		AppendDouble("nReturned", p.Returned).
		Build()
}
