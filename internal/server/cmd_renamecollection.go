package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/timeseries"
)

func init() {
	c := admin(cmdRenameCollection, authzRule{needs: renameNeeds, check: renameCheck}, "renameCollection").takingWriteConcern().inApplyOps()
	c.applyOpsEntry = renameFromEntry
	register(c)
}

// renameFromEntry is the applyOps form of a renameCollection entry: run on
// admin, its dropTarget (the dropped target's UUID in mongod's entries) a
// boolean.
func renameFromEntry(o bsoncore.Document, _ string) (bsoncore.Document, string) {
	els, _ := o.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, el := range els {
		v := el.Value()
		if el.Key() == "dropTarget" && v.Type != bsoncore.TypeBoolean {
			b.AppendBoolean("dropTarget", v.Type != bsoncore.TypeNull)
			continue
		}
		b.AppendValue(el.Key(), v)
	}
	return b.Build(), "admin"
}

// cmdRenameCollection renames "db.a" to "db2.b"; it runs on admin.
func cmdRenameCollection(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "renameCollection may only be run against the admin database.")
	}
	from, err := argString(req.Name, req.Name, req.Cmd.Index(0).Value())
	if err != nil {
		return nil, err
	}
	var to string
	dropTarget := false
	var wantUUID *bsoncore.Value
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "to":
			to, err = argString(req.Name, k, v)
		case "dropTarget":
			if _, _, ok := v.BinaryOK(); ok {
				// The variant that drops the target only if it has this
				// UUID (mongod's internal use).
				return true, errs.New(errs.NotImplemented, "renameCollection.dropTarget with a UUID is not supported by Lode; use dropTarget: true")
			}
			dropTarget, err = argBool(req.Name, k, v)
		case "stayTemp":
			// Lode has no temporary collections (create refuses temp:
			// true), so there is no temp flag to keep or clear.
			_, err = argBool(req.Name, k, v)
		case "collectionUUID":
			// The source's UUID; checked once the source is known.
			if st, _, ok := v.BinaryOK(); !ok || st != 4 {
				return true, wrongType(req.Name, k, v, "uuid")
			}
			wantUUID = &v
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	fdb, fcoll, ok := splitNS(from)
	if !ok {
		return nil, errs.New(errs.InvalidNamespace, "Invalid source namespace: %s", from)
	}
	tdb, tcoll, ok := splitNS(to)
	if !ok {
		return nil, errs.New(errs.InvalidNamespace, "Invalid target namespace: %s", to)
	}
	if wantUUID != nil {
		if err := s.checkCollectionUUID(fdb, fcoll, *wantUUID); err != nil {
			return nil, err
		}
	}
	if v, err := s.lookupView(ctx, fdb, fcoll); err != nil {
		return nil, err
	} else if v != nil {
		return nil, errs.New(errs.CommandNotSupportedOnView, "cannot rename view: %s", from)
	}
	if v, err := s.lookupView(ctx, tdb, tcoll); err != nil {
		return nil, err
	} else if v != nil {
		return nil, errs.New(errs.NamespaceExists, "a view already exists with that name: %s", to)
	}
	// A time series collection's buckets stay under its name, as mongod
	// keeps them.
	_, fromBuckets := timeseries.IsBucketsName(fcoll)
	_, toBuckets := timeseries.IsBucketsName(tcoll)
	if fromBuckets || toBuckets {
		return nil, errs.New(errs.IllegalOperation, "Cannot rename timeseries buckets collection '%s' to '%s'", from, to)
	}
	if err := s.eng.RenameCollection(fdb, fcoll, tdb, tcoll, dropTarget); err != nil {
		return nil, err
	}
	return nil, nil
}
