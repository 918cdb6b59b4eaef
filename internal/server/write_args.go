package server

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/wire"
)

// writeBatch is what insert, update and delete share: the collection, the
// array of statements (or documents), ordered, and the optional let and
// bypassDocumentValidation.
type writeBatch struct {
	coll  string
	stmts []bsoncore.Document
	let   bsoncore.Document
	opts  engine.WriteOptions
	// bypassEmptyTs: bypassEmptyTsReplacement, keep top-level
	// Timestamp(0, 0) values as given (see emptyts.go).
	bypassEmptyTs bool
	// collectionUUID, when set, must be the collection's UUID
	// (checkCollectionUUID).
	collectionUUID *bsoncore.Value
}

// batchFields lists the optional fields a write command accepts besides
// ordered, stmtId and stmtIds.
type batchFields struct {
	let, bypass, runtimeConstants, bypassEmptyTs bool
}

// parseWriteBatch reads a write command whose statements are in field
// ("documents", "updates", "deletes"): every field of the command but its
// write concern. A field the command does not accept is unknown (40415).
func parseWriteBatch(req *Request, field string, accept batchFields) (writeBatch, error) {
	coll, err := collName(req)
	if err != nil {
		return writeBatch{}, err
	}
	b := writeBatch{coll: coll, opts: engine.WriteOptions{Ordered: true}}
	seen := false
	hasStmtID, nStmtIDs := false, -1
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch {
		case k == field:
			seen = true
			if seq := req.sequence(field); seq != nil {
				// The array's documents, as the wire layer read them.
				b.stmts = seq.Documents
			} else {
				b.stmts, err = argDocArray(req.Name, k, v)
			}
		case k == "ordered":
			b.opts.Ordered, err = argBool(req.Name, k, v)
		case k == "bypassDocumentValidation" && accept.bypass:
			b.opts.BypassDocumentValidation, err = argBool(req.Name, k, v)
		case k == "bypassEmptyTsReplacement" && accept.bypassEmptyTs:
			b.bypassEmptyTs, err = argBool(req.Name, k, v)
		case k == "let" && accept.let:
			b.let, err = argDoc(req.Name, k, v)
		case k == "collectionUUID":
			if _, _, ok := v.BinaryOK(); !ok {
				return true, wrongType(req.Name, k, v, "uuid")
			}
			u := v // a copy: taking v's address would move every argument to the heap
			b.collectionUUID = &u
		case k == "isTimeseriesNamespace", k == "encryptionInformation":
			// mongos's flag for a shard's time-series buckets (Lode is
			// not sharded) and queryable encryption, which Lode has not.
			if k == "isTimeseriesNamespace" && v.Type == bsoncore.TypeBoolean && !v.Boolean() {
				return true, nil
			}
			return true, errs.New(errs.NotImplemented, "%s.%s is not supported: Lode is not sharded (isTimeseriesNamespace is mongos's) and has no queryable encryption", req.Name, k)
		case k == "runtimeConstants" && accept.runtimeConstants:
			return true, errs.New(errs.NotImplemented, "%s.runtimeConstants is not supported by Lode: it is mongos's internal way to fix $$NOW and $$CLUSTER_TIME, which Lode computes itself", req.Name)
		case k == "stmtId":
			// The statements' numbers for retryable writes
			// (session_retry.go stmtIDs): stmtId numbers them from it,
			// stmtIds one by one; by default they are 0, 1, ...
			if _, ok := v.Int32OK(); !ok {
				return true, wrongType(req.Name, k, v, "int")
			}
			hasStmtID = true
		case k == "stmtIds":
			arr, ok := v.ArrayOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "array")
			}
			vals, _ := arr.Values()
			for _, x := range vals {
				if _, ok := x.Int32OK(); !ok {
					return true, wrongType(req.Name, k, x, "int")
				}
			}
			nStmtIDs = len(vals)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return writeBatch{}, err
	}
	if seq := req.sequence(field); seq != nil && !seen {
		// The statements came in a sequence and the command is the body
		// alone (wire.Msg.Command).
		seen, b.stmts = true, seq.Documents
	}
	if !seen {
		return writeBatch{}, errs.New(errs.Location40414, "BSON field '%s.%s' is missing but a required field", req.Name, field)
	}
	if err := checkBatchSize(len(b.stmts)); err != nil {
		return writeBatch{}, err
	}
	if nStmtIDs >= 0 && nStmtIDs != len(b.stmts) {
		return writeBatch{}, errs.New(errs.InvalidLength, "Number of statement ids must match the number of batch entries. Got %d statement ids but %d operations.", nStmtIDs, len(b.stmts))
	}
	if nStmtIDs >= 0 && hasStmtID {
		return writeBatch{}, errs.New(errs.InvalidOptions, "May not specify both stmtId and stmtIds in write command")
	}
	return b, nil
}

// parseStatements parses each statement of b with parse, which also
// receives the command's let.
func parseStatements[S any](b writeBatch, parse func(st, let bsoncore.Document, s *S) error) ([]S, error) {
	out := make([]S, len(b.stmts))
	for i, st := range b.stmts {
		if err := parse(st, b.let, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseStatement reads the fields of one statement of cmd
// ("update.updates", "delete.deletes") with field, which returns false
// for a field the statement does not have (40415). The required fields
// must all be present (40414).
func parseStatement(cmd string, st bsoncore.Document, required []string, field func(k string, v bsoncore.Value) (bool, error)) error {
	elems, err := st.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid %s statement: %v", cmd[:strings.IndexByte(cmd, '.')], err)
	}
	missing := append([]string(nil), required...)
	for _, el := range elems {
		k := el.Key()
		known, err := field(k, el.Value())
		if err == nil && !known {
			err = errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", cmd, k)
		}
		if err != nil {
			return err
		}
		for i, r := range missing {
			if r == k {
				missing = append(missing[:i], missing[i+1:]...)
				break
			}
		}
	}
	if len(missing) > 0 {
		return errs.New(errs.Location40414, "BSON field '%s.%s' is missing but a required field", cmd, missing[0])
	}
	return nil
}

// checkBatchSize enforces MongoDB's maxWriteBatchSize.
func checkBatchSize(n int) error {
	if n < 1 || n > wire.MaxWriteBatchSize {
		return errs.New(errs.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", wire.MaxWriteBatchSize, n)
	}
	return nil
}
