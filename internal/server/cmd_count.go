package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"count"}, handler: cmdCount, authz: requires(collNeeds(auth.ActFind)),
		api: apiV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: &explainer{plan: explainCount, onView: countOnView}, applyOps: no,
		observe: observed(opCommand, onColl),
		shape:   &shapeForm{filter: "query", limitSkip: true}})
}

// cmdCount counts the documents matching a query.
func cmdCount(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	c, err := parseCount(req)
	if err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, c.coll); err != nil {
		return nil, err
	} else if v != nil {
		reply, err := runViewAggregate(ctx, s, req, countAsAggregate(req, c)) // views_agg.go
		if err != nil {
			return nil, err
		}
		var n int64
		if docs := drainFirstBatch(reply); len(docs) == 1 {
			n, _ = docs[0].Lookup("count").AsInt64OK()
		}
		b := bsoncore.NewDocumentBuilder()
		appendNumber(b, "n", n)
		return b.Build(), nil
	}
	n, err := s.eng.CountCollated(ctx, req.DB, c.coll, c.filter, c.skip, c.limit, c.hint, c.collation)
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder()
	appendNumber(b, "n", n)
	return b.Build(), nil
}

// countCmd is a parsed count command.
type countCmd struct {
	coll        string
	filter      bsoncore.Document
	skip, limit int64 // limit is positive (a negative one counts as its absolute value), 0 for none
	hint        bsoncore.Value
	collation   bsoncore.Document
}

// parseCount reads a count command; explain parses the count it explains
// with it too, so both reject the same arguments with the same errors.
func parseCount(req *Request) (countCmd, error) {
	coll, err := collName(req)
	if err != nil {
		return countCmd{}, err
	}
	c := countCmd{coll: coll}
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "query":
			if v.Type != bsoncore.TypeNull {
				c.filter, err = argDoc(req.Name, k, v)
			}
		case "skip":
			c.skip, err = nonNegative(req.Name, k, v)
		case "limit":
			c.limit, err = argInt64(req.Name, k, v)
			if c.limit < 0 {
				c.limit = -c.limit
			}
		case "hint":
			c.hint = v
		case "collation":
			c.collation, err = argCollationDoc(req.Name, k, v)
		case "fields":
			// Ignored, as mongod ignores it (the legacy shell sent it).
		case "mirrored", "sampleId":
			// Mirrored reads and query sampling: no effect on the count.
		case "encryptionInformation":
			err = errs.New(errs.NotImplemented, "count.encryptionInformation is not supported by Lode: it has no queryable encryption")
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return countCmd{}, err
	}
	return c, nil
}

// appendNumber appends n as int32 when it fits and int64 otherwise, as
// mongod's appendNumber does.
func appendNumber(b *bsoncore.DocumentBuilder, key string, n int64) {
	if n >= -1<<31 && n < 1<<31 {
		b.AppendInt32(key, int32(n))
		return
	}
	b.AppendInt64(key, n)
}
