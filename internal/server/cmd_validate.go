package server

import (
	"context"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"validate"}, handler: cmdValidate, authz: requires(collNeeds(auth.ActValidate)),
		api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand, onColl)})
}

// cmdValidate checks a collection's records and index entries against
// each other and reports as MongoDB's validate does.
func cmdValidate(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		return nil, errs.New(errs.CommandNotSupportedOnView, "Cannot validate a view") // views.go
	}
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "full", "background", "enforceFastCount":
			// Lode's validate always reads every record and index entry
			// and counts exactly, so full and enforceFastCount ask for
			// nothing more, and background changes only how mongod reads.
			_, err := argBool(req.Name, k, v)
			return true, err
		case "repair", "metadata", "checkBSONConformance":
			on, err := argBool(req.Name, k, v)
			if err == nil && on {
				err = errs.New(errs.NotImplemented, "validate.%s is not supported by Lode: %s", k, map[string]string{
					"repair":               "it does not repair collections or indexes",
					"metadata":             "it has no metadata-only validation",
					"checkBSONConformance": "it does not check documents' BSON beyond what it needs to read them",
				}[k])
			}
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	r, err := s.eng.Validate(ctx, req.DB, coll)
	if err != nil {
		return nil, err
	}
	keys := bsoncore.NewDocumentBuilder()
	details := bsoncore.NewDocumentBuilder()
	for _, ix := range r.Indexes {
		keys.AppendInt64(ix.Name, ix.Keys)
		details.AppendDocument(ix.Name, bsoncore.NewDocumentBuilder().AppendBoolean("valid", ix.Valid).Build())
	}
	return bsoncore.NewDocumentBuilder().
		AppendString("ns", ns(req.DB, coll)).
		AppendBinary("uuid", 4, r.UUID[:]).
		AppendInt64("nInvalidDocuments", r.NInvalidDocuments).
		AppendInt64("nNonCompliantDocuments", 0).
		AppendInt64("nrecords", r.NRecords).
		AppendInt32("nIndexes", int32(len(r.Indexes))).
		AppendDocument("keysPerIndex", keys.Build()).
		AppendDocument("indexDetails", details.Build()).
		AppendBoolean("valid", r.Valid).
		AppendBoolean("repaired", false).
		AppendArray("warnings", stringArray(r.Warnings)).
		AppendArray("errors", stringArray(r.Errors)).
		AppendArray("extraIndexEntries", problemArray(r.Extra)).
		AppendArray("missingIndexEntries", problemArray(r.Missing)).
		AppendArray("corruptRecords", ridArray(r.CorruptRecords)).
		Build(), nil
}

func stringArray(ss []string) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, s := range ss {
		ab.AppendString(s)
	}
	return ab.Build()
}

func problemArray(ps []engine.IndexEntryProblem) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, p := range ps {
		ab.AppendDocument(bsoncore.NewDocumentBuilder().
			AppendString("indexName", p.Index).
			AppendInt64("recordId", int64(p.RecordID)).
			AppendString("indexKey", p.Key).Build())
	}
	return ab.Build()
}

func ridArray(rids []uint64) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, r := range rids {
		ab.AppendString("RecordId(" + strconv.FormatUint(r, 10) + ")")
	}
	return ab.Build()
}
