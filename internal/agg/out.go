package agg

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.writes = yes
		w.dropsTextScore = yes
		w.inView = no
		w.last = yes
		w.inFacet = no
		w.inLookup = no
		w.inUnion = no
		registerStage("$out", stageDef{parse: parseOut, access: outAccess, sources: noSources, where: w, explain: explainNone, shape: shapeVerbatim})
	}
}

// outBatch is how many documents $out and $merge write per Insert call.
const outBatch = 256

// outStage is $out: the results replace the target collection atomically.
// They are written to a temporary collection created with the target's
// options and indexes, renamed over the target at the end; if a document
// violates one of those indexes (11000) the target is left as it was.
type outStage struct {
	raw      bsoncore.Value
	db, coll string
}

// parseTarget reads "coll" or {db, coll} of $out and $merge.into.
func parseTarget(stageName string, v bsoncore.Value, defDB string) (string, string, error) {
	db, coll := defDB, ""
	switch v.Type {
	case bsoncore.TypeString:
		coll = v.StringValue()
	case bsoncore.TypeEmbeddedDocument:
		els, _ := v.Document().Elements()
		for _, el := range els {
			s, ok := el.Value().StringValueOK()
			switch el.Key() {
			case "db":
				if !ok {
					return "", "", errs.New(errs.TypeMismatch, "BSON field '%s.db' is the wrong type '%s', expected type 'string'", stageName, bsonutil.TypeName(el.Value().Type))
				}
				db = s
			case "coll":
				if !ok {
					return "", "", errs.New(errs.TypeMismatch, "BSON field '%s.coll' is the wrong type '%s', expected type 'string'", stageName, bsonutil.TypeName(el.Value().Type))
				}
				coll = s
			case "timeseries":
				return "", "", errs.New(errs.NotImplemented, "%s to a time-series collection is not supported", stageName)
			default:
				return "", "", errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", stageName, el.Key())
			}
		}
	default:
		return "", "", errs.New(errs.Location13111, "%s only supports a string or object argument, not %s", stageName, bsonutil.TypeName(v.Type))
	}
	if coll == "" || db == "" || strings.HasPrefix(coll, "system.") || strings.ContainsAny(coll, "$\x00") {
		return "", "", errs.New(errs.InvalidNamespace, "Invalid %s target namespace, '%s.%s'", stageName, db, coll)
	}
	return db, coll, nil
}

func parseOut(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	db, coll, err := parseTarget("$out", v, pc.DB)
	if err != nil {
		return nil, err
	}
	return []stage{&outStage{raw: v, db: db, coll: coll}}, nil
}

func (o *outStage) name() string            { return "$out" }
func (o *outStage) spec() bsoncore.Document { return specDoc("$out", o.raw) }

func (o *outStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	done := false
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if done {
				return nil, nil
			}
			done = true
			tmp := fmt.Sprintf("tmp.agg_out.%016x", rand.Uint64())
			if err := rc.cat.PrepareOut(rc.ctx, o.db, o.coll, tmp); err != nil {
				rc.cat.DropCollection(rc.ctx, o.db, tmp)
				return nil, err
			}
			if err := writeAll(rc, in, o.db, tmp); err != nil {
				rc.cat.DropCollection(rc.ctx, o.db, tmp)
				return nil, err
			}
			if err := rc.cat.RenameCollection(rc.ctx, o.db, tmp, o.db, o.coll, true); err != nil {
				rc.cat.DropCollection(rc.ctx, o.db, tmp)
				return nil, err
			}
			return nil, nil
		},
		close: in.Close,
	}, nil
}

// writeAll inserts every input document into db.coll in batches. An empty
// input still creates the collection (through an empty rename source).
func writeAll(rc *runCtx, in Iterator, db, coll string) error {
	var batch []bsoncore.Document
	var size int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := rc.cat.Insert(rc.ctx, db, coll, batch)
		batch, size = batch[:0], 0
		return err
	}
	wrote := false
	for {
		d, err := in.Next()
		if err != nil {
			return err
		}
		if d == nil {
			break
		}
		wrote = true
		batch = append(batch, d)
		size += len(d)
		if len(batch) >= outBatch || size > 8<<20 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if !wrote {
		// Create the (empty) collection so the rename has a source.
		return rc.cat.CreateCollection(rc.ctx, db, coll)
	}
	return flush()
}

// outAccess: insert and remove on the target, which {db, coll} may put in
// any database (mongod's DocumentSourceOut::LiteParsed).
func outAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	db, coll, err := parseTarget("$out", spec, ns.DB)
	if err != nil {
		return nil, err
	}
	return []Access{{Scope: ScopeCollection, DB: db, Coll: coll, Actions: []string{"insert", "remove"}}}, nil
}
