package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

func init() {
	register(command{names: []string{"findAndModify", "findandmodify"}, handler: cmdFindAndModify, authz: requires(bypassNeeds(findAndModifyNeeds)),
		api: apiV1, inTxn: yes, retryable: yes, snapshotRead: no, writeConcern: yes, ownWriteConcern: true, explain: &explainer{plan: explainFindAndModify}, applyOps: no,
		observe: observed(opCommand, onColl, modifyReply),
		shape:   &shapeForm{filter: "query", proj: "fields", update: "update", flags: []string{"remove", "new", "upsert"}},
		// A retry is answered from the image of the document it returned.
		retry: &retryForm{answer: famRetryReply, imageAfter: famImageAfter}})
}

// cmdFindAndModify atomically finds one document and updates or removes
// it, returning the document before or after the change.
func cmdFindAndModify(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, spec, err := parseFindAndModify(req)
	if err != nil {
		return nil, err
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err // views.go
	}
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	spec.Journal = wc.journal
	if !spec.Remove && !bypassEmptyTs(req) {
		spec.Update = s.replaceEmptyTimestampsInReplacement(spec.Update)
	}
	res, err := s.eng.FindAndModify(ctx, req.DB, coll, spec)
	if err != nil {
		return nil, err
	}
	if spec.Remove {
		s.stats.delete.Add(1)
	} else {
		s.stats.update.Add(1)
	}
	if res.LastErrorObject.Upserted.Type != 0 {
		s.inserts.notify(ns(req.DB, coll))
	}
	leo := bsoncore.NewDocumentBuilder().AppendInt32("n", int32(res.LastErrorObject.N))
	if !spec.Remove {
		leo.AppendBoolean("updatedExisting", res.LastErrorObject.UpdatedExisting)
	}
	if res.LastErrorObject.Upserted.Type != 0 {
		leo.AppendValue("upserted", res.LastErrorObject.Upserted)
	}
	b := bsoncore.NewDocumentBuilder().AppendDocument("lastErrorObject", leo.Build())
	if res.Value != nil {
		b.AppendDocument("value", res.Value)
	} else {
		b.AppendNull("value")
	}
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// parseFindAndModify reads a findAndModify command (not its write
// concern); explain parses the findAndModify it explains with it too, so
// both reject the same arguments with the same errors.
func parseFindAndModify(req *Request) (string, engine.FindAndModifySpec, error) {
	var spec engine.FindAndModifySpec
	coll, err := collName(req)
	if err != nil {
		return "", spec, err
	}
	hasUpdate := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "query":
			if v.Type != bsoncore.TypeNull {
				spec.Query, err = argDoc(req.Name, k, v)
			}
		case "sort":
			if v.Type != bsoncore.TypeNull {
				spec.Sort, err = argDoc(req.Name, k, v)
			}
		case "update":
			if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
				return true, errs.New(errs.FailedToParse, "Update argument must be either an object or an array")
			}
			hasUpdate = true
			spec.Update = v
		case "remove":
			spec.Remove, err = argBool(req.Name, k, v)
		case "new":
			spec.New, err = argBool(req.Name, k, v)
		case "upsert":
			spec.Upsert, err = argBool(req.Name, k, v)
		case "fields":
			if v.Type != bsoncore.TypeNull {
				spec.Fields, err = argDoc(req.Name, k, v)
			}
		case "arrayFilters":
			spec.ArrayFilters, err = argDocArray(req.Name, k, v)
		case "hint":
			spec.Hint, err = argHint(v)
		case "let":
			spec.Let, err = argDoc(req.Name, k, v)
		case "collation":
			spec.Collation, err = argCollationDoc(req.Name, k, v)
		case "bypassEmptyTsReplacement":
			_, err = argBool(req.Name, k, v)
		case "encryptionInformation":
			err = errs.New(errs.NotImplemented, "findAndModify.encryptionInformation is not supported: Lode has no queryable encryption")
		case "bypassDocumentValidation":
			spec.BypassDocumentValidation, err = argBool(req.Name, k, v)
		case "batchSize", "singleBatch":
			// In the IDL for the query-shaped parsing of mongos; the
			// reply is one document whatever they say.
			if k == "batchSize" {
				_, err = argInt64(req.Name, k, v)
			} else {
				_, err = argBool(req.Name, k, v)
			}
		case "$_originalQuery", "$_originalCollation":
			err = errs.New(errs.NotImplemented, "findAndModify.%s is not supported by Lode: it is an internal option of writes without shard key in sharded clusters", k)
		case "runtimeConstants":
			err = errs.New(errs.NotImplemented, "findAndModify.runtimeConstants is not supported by Lode: it is mongos's internal way to fix $$NOW and $$CLUSTER_TIME, which Lode computes itself")
		case "stmtId", "sampleId", "$_allowShardKeyUpdatesWithoutFullShardKeyInQuery":
			// stmtId: the statement's number for retryable writes;
			// sampleId and the shard key flag: sharded-cluster options
			// with no effect on a server that is no shard.
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return "", spec, err
	}
	switch {
	case spec.Remove && hasUpdate:
		return "", spec, errs.New(errs.FailedToParse, "Cannot specify both an update and remove=true")
	case !spec.Remove && !hasUpdate:
		return "", spec, errs.New(errs.FailedToParse, "Either an update or remove=true must be specified")
	case spec.Remove && spec.Upsert:
		return "", spec, errs.New(errs.FailedToParse, "Cannot specify both upsert=true and remove=true ")
	case spec.Remove && spec.New:
		return "", spec, errs.New(errs.FailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
	}
	return coll, spec, nil
}

// famRetryReply answers a retried findAndModify from the image its
// earlier attempt recorded (session_retry.go), projected by the retry's
// fields.
func famRetryReply(req *Request, im *retryImage) (bsoncore.Document, error) {
	_, spec, err := parseFindAndModify(req)
	if err != nil {
		return nil, err
	}
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	leo := bsoncore.NewDocumentBuilder().AppendInt32("n", 1)
	if im.op != "d" {
		leo.AppendBoolean("updatedExisting", im.op == "u")
	}
	if im.op == "i" && im.id.Type != 0 {
		leo.AppendValue("upserted", im.id)
	}
	b := bsoncore.NewDocumentBuilder().AppendDocument("lastErrorObject", leo.Build())
	doc := im.doc
	if doc != nil && len(spec.Fields) > 5 {
		p, err := query.ParseProjection(spec.Fields)
		if err != nil {
			return nil, err
		}
		if doc, err = p.Apply(doc, 0); err != nil {
			return nil, err
		}
	}
	if doc != nil {
		b.AppendDocument("value", doc)
	} else {
		b.AppendNull("value")
	}
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// famImageAfter: the image of a findAndModify with new: true is the
// document after the change.
func famImageAfter(req *Request) bool {
	after, _ := req.Cmd.Lookup("new").BooleanOK()
	return after
}
