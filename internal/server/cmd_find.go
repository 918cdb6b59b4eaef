package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"find"}, handler: cmdFind, authz: requires(collNeeds(auth.ActFind)),
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: yes, writeConcern: no, explain: &explainer{plan: explainFind, onView: findOnView}, applyOps: no,
		observe: observed(opQuery, onColl, cursorReply),
		shape:   &shapeForm{filter: "filter", proj: "projection", limitSkip: true},
		// Fields its IDL marks unstable or internal: refused with
		// apiStrict: true.
		apiUnstable: setOf("min", "max", "returnKey", "showRecordId",
			"$queryOptions", "tailable", "oplogReplay", "noCursorTimeout",
			"awaitData", "term", "readOnce", "allowSpeculativeMajorityRead",
			"$_requestResumeToken", "$_resumeAfter", "$_startAt",
			"runtimeConstants", "collectionUUID", "encryptionInformation",
			"mirrored", "sampleId")})
}

// cmdFind runs a query and returns the first batch of its cursor.
func cmdFind(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		// A find on a view runs as an aggregate (views_agg.go).
		if err := viewFindOptions(req.Cmd); err != nil {
			return nil, err
		}
		f, err := parseFind(req, s.eng.Params().AllowDiskUseByDefault.Load())
		if err != nil {
			return nil, err
		}
		if f.collectionUUID != nil { // a view has no UUID
			if err := s.checkCollectionUUID(req.DB, f.coll, *f.collectionUUID); err != nil {
				return nil, err
			}
		}
		cmd, err := findAsAggregate(req, f)
		if err != nil {
			return nil, err
		}
		return runViewAggregate(ctx, s, req, cmd)
	}
	f, err := parseFind(req, s.eng.Params().AllowDiskUseByDefault.Load())
	if err != nil {
		return nil, err
	}
	if f.collectionUUID != nil {
		if err := s.checkCollectionUUID(req.DB, f.coll, *f.collectionUUID); err != nil {
			return nil, err
		}
	}
	spec, coll, batchSize, hasBatch := f.spec, f.coll, f.batchSize, f.hasBatch
	sctx := cursor.NewSwitchContext(ctx)
	var it cursor.Source
	if txnTableNS(req.DB, coll) {
		it, err = s.openTxnTable(sctx, spec) // config.transactions (session_retry.go)
	} else {
		it, err = s.eng.Find(sctx, req.DB, coll, spec)
	}
	if err != nil {
		return nil, err
	}
	c := cursor.New(ns(req.DB, coll), it)
	c.Ctx = sctx
	c.Tailable, c.AwaitData = spec.Tailable, spec.AwaitData
	c.NoTimeout = f.noTimeout
	if spec.Limit > 0 {
		c.Limit = spec.Limit
		if !hasBatch || batchSize > spec.Limit {
			batchSize, hasBatch = spec.Limit, true
		}
	}
	return s.firstBatch(ctx, c, batchSize, hasBatch, f.singleBatch)
}

// findCmd is a parsed find command.
type findCmd struct {
	coll      string
	spec      engine.FindSpec
	batchSize int64
	// hasBatch is set when batchSize was given.
	hasBatch, singleBatch, noTimeout bool
	// collectionUUID, when set, must be the collection's UUID.
	collectionUUID *bsoncore.Value
}

// parseFind reads a find command; explain parses the find it explains
// with it too, so both reject the same arguments with the same errors.
func parseFind(req *Request, allowDiskUseDefault bool) (findCmd, error) {
	coll, err := collName(req)
	if err != nil {
		return findCmd{}, err
	}
	f := findCmd{coll: coll, spec: engine.FindSpec{AllowDiskUse: allowDiskUseDefault}}
	spec := &f.spec
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "filter":
			spec.Filter, err = argDoc(req.Name, k, v)
		case "sort":
			spec.Sort, err = argDoc(req.Name, k, v)
		case "projection":
			spec.Projection, err = argDoc(req.Name, k, v)
		case "hint":
			if v.Type != bsoncore.TypeString && v.Type != bsoncore.TypeEmbeddedDocument {
				return true, wrongType(req.Name, k, v, "[string, object]")
			}
			spec.Hint = v
		case "skip":
			spec.Skip, err = nonNegative(req.Name, k, v)
		case "limit":
			spec.Limit, err = nonNegative(req.Name, k, v)
		case "batchSize":
			f.batchSize, err = nonNegative(req.Name, k, v)
			f.hasBatch = true
		case "singleBatch":
			f.singleBatch, err = argBool(req.Name, k, v)
		case "tailable":
			spec.Tailable, err = argBool(req.Name, k, v)
		case "awaitData":
			spec.AwaitData, err = argBool(req.Name, k, v)
		case "allowDiskUse":
			spec.AllowDiskUse, err = argBool(req.Name, k, v)
		case "noCursorTimeout":
			f.noTimeout, err = argBool(req.Name, k, v)
		case "let":
			spec.Let, err = argDoc(req.Name, k, v)
		case "collation":
			spec.Collation, err = argCollationDoc(req.Name, k, v)
		case "showRecordId":
			spec.ShowRecordID, err = argBool(req.Name, k, v)
		case "returnKey":
			spec.ReturnKey, err = argBool(req.Name, k, v)
		case "min":
			spec.Min, err = argDoc(req.Name, k, v)
		case "max":
			spec.Max, err = argDoc(req.Name, k, v)
		case "collectionUUID":
			if _, _, ok := v.BinaryOK(); !ok {
				return true, wrongType(req.Name, k, v, "uuid")
			}
			f.collectionUUID = &v
		case "$_requestResumeToken":
			var on bool
			if on, err = argBool(req.Name, k, v); err == nil && on {
				err = errs.New(errs.NotImplemented, "find.$_requestResumeToken is not supported by Lode: it has no record-id resume tokens")
			}
		case "$_resumeAfter", "$_startAt":
			var d bsoncore.Document
			if d, err = argDoc(req.Name, k, v); err == nil && len(d) > 5 {
				err = errs.New(errs.NotImplemented, "find.%s is not supported by Lode: it has no record-id resume tokens", k)
			}
		case "runtimeConstants":
			err = errs.New(errs.NotImplemented, "find.runtimeConstants is not supported by Lode: it is mongos's internal way to fix $$NOW and $$CLUSTER_TIME, which Lode computes itself")
		case "encryptionInformation":
			err = errs.New(errs.NotImplemented, "find.encryptionInformation is not supported by Lode: it has no queryable encryption")
		case "term", "readOnce", "allowSpeculativeMajorityRead":
			// term: a replication-internal field; readOnce: a storage
			// caching hint; allowSpeculativeMajorityRead: for nodes
			// without majority read concern. None changes the result on
			// a single node; types are checked as mongod does.
			if k == "term" {
				_, err = argInt64(req.Name, k, v)
			} else {
				_, err = argBool(req.Name, k, v)
			}
		case "mirrored", "sampleId":
			// A mirrored read warms a secondary's cache; sampleId is
			// query sampling for analyzeShardKey. Neither changes the
			// result.
		case "allowPartialResults", "oplogReplay":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return findCmd{}, err
	}
	if spec.AwaitData && !spec.Tailable {
		return findCmd{}, errs.New(errs.FailedToParse, "Cannot set 'awaitData' without also setting 'tailable'")
	}
	return f, nil
}

// nonNegative reads an integer argument that must be >= 0.
func nonNegative(cmd, field string, v bsoncore.Value) (int64, error) {
	n, err := argInt64(cmd, field, v)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errs.New(errs.Location51024, "BSON field '%s' value must be >= 0, actual value '%d'", field, n)
	}
	return n, nil
}
