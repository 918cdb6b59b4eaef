package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"distinct"}, handler: cmdDistinct, authz: requires(collNeeds(auth.ActFind)),
		api: apiNotV1, inTxn: yes, retryable: no, snapshotRead: yes, writeConcern: no, explain: &explainer{plan: explainDistinct, onView: distinctOnView}, applyOps: no,
		observe: observed(opCommand, onColl),
		shape:   &shapeForm{filter: "query", key: true}})
}

// cmdDistinct returns the distinct values of a field.
func cmdDistinct(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	d, err := parseDistinct(req)
	if err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, d.coll); err != nil {
		return nil, err
	} else if v != nil {
		reply, err := runViewAggregate(ctx, s, req, distinctAsAggregate(req, d)) // views_agg.go
		if err != nil {
			return nil, err
		}
		values := bsoncore.NewArrayBuilder().Build()
		if docs := drainFirstBatch(reply); len(docs) == 1 {
			if arr, ok := docs[0].Lookup("distinct").ArrayOK(); ok {
				values = arr
			}
		}
		return bsoncore.NewDocumentBuilder().AppendArray("values", values).Build(), nil
	}
	vals, err := s.eng.DistinctCollated(ctx, req.DB, d.coll, d.key, d.filter, d.collation)
	if err != nil {
		return nil, err
	}
	// mongod's distinct refuses a list of values past 16 MB - 4 KB: as it
	// collects them (17217, the sum of their elements' sizes, named by
	// the key's last part) and once more on the reply (31299).
	name := d.key[strings.LastIndexByte(d.key, '.')+1:]
	approx := 0
	for _, v := range vals {
		approx += 2 + len(name) + len(v.Data)
		if approx >= maxDistinctBytes {
			return nil, errs.New(errs.Location17217, "distinct too big, 16mb cap")
		}
	}
	ab := bsoncore.NewArrayBuilder()
	for _, v := range vals {
		ab.AppendValue(v)
	}
	reply := bsoncore.NewDocumentBuilder().AppendArray("values", ab.Build()).Build()
	if len(reply) >= maxDistinctBytes {
		return nil, errs.New(errs.Location31299, "distinct too big, 16mb cap")
	}
	return reply, nil
}

// maxDistinctBytes is mongod's kMaxResponseSize for distinct:
// BSONObjMaxUserSize - 4096.
const maxDistinctBytes = 16<<20 - 4096

// distinctCmd is a parsed distinct command.
type distinctCmd struct {
	coll, key string
	filter    bsoncore.Document
	collation bsoncore.Document
}

// parseDistinct reads a distinct command; explain parses the distinct it
// explains with it too, so both reject the same arguments with the same
// errors.
func parseDistinct(req *Request) (distinctCmd, error) {
	coll, err := collName(req)
	if err != nil {
		return distinctCmd{}, err
	}
	d := distinctCmd{coll: coll}
	hasKey := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "key":
			hasKey = true
			d.key, err = argString(req.Name, k, v)
		case "query":
			if v.Type != bsoncore.TypeNull {
				d.filter, err = argDoc(req.Name, k, v)
			}
		case "collation":
			d.collation, err = argCollationDoc(req.Name, k, v)
		case "hint":
			// Not a field of 7.0's distinct (7.1 added it); refused
			// rather than ignored, as a hinted sparse or partial index
			// would change the values.
			err = errs.New(errs.NotImplemented, "distinct.hint is not supported by Lode: it follows MongoDB 7.0, whose distinct takes no hint")
		case "mirrored", "sampleId":
			// mirrored: the read is a secondary's cache warming copy;
			// sampleId: query sampling for analyzeShardKey. Neither
			// changes the result.
		case "encryptionInformation":
			err = errs.New(errs.NotImplemented, "distinct.encryptionInformation is not supported by Lode: it has no queryable encryption")
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return distinctCmd{}, err
	}
	if !hasKey {
		return distinctCmd{}, errs.New(errs.Location40414, "BSON field 'distinct.key' is missing but a required field")
	}
	return d, nil
}
