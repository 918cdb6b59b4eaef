package server

import (
	"context"
	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/collation"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"create"}, handler: cmdCreate, authz: authzRule{needs: collNeeds(auth.ActCreateCollection), check: viewDefCheck(auth.ActCreateCollection)},
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: no, writeConcern: yes, explain: notExplained, applyOps: yes,
		observe: observed(opCommand, onColl), creates: true, applyOpsEntry: createFromEntry})
}

// createFromEntry is the applyOps form of a create entry: without its
// (default) idIndex.
func createFromEntry(o bsoncore.Document, db string) (bsoncore.Document, string) {
	els, _ := o.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, el := range els {
		if el.Key() != "idIndex" {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return b.Build(), db
}

// cmdCreate creates a collection, optionally capped. Inside a transaction
// the collection belongs to it until it ends and is dropped if it aborts.
func cmdCreate(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	var opts engine.CreateOptions
	raw := bsoncore.NewDocumentBuilder()
	var (
		viewOn                 string
		pipeline               []bsoncore.Document
		hasViewOn, hasPipeline bool
		createColl             bsoncore.Document // normalised; nil: simple
		idIndexColl            bsoncore.Document
		hasIDIndex             bool
		clustered              bsoncore.Document // normalised; nil: not clustered
		expiry                 *int64
		tsSpec                 bsoncore.Value // timeseries (create_timeseries.go)
	)
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "capped":
			opts.Capped, err = argBool(req.Name, k, v)
		case "size":
			opts.Size, err = argInt64(req.Name, k, v)
		case "max":
			opts.Max, err = argInt64(req.Name, k, v)
		case "collation":
			// Stored as mongod stores it: the normalised spec, or
			// nothing for the simple collation.
			var d bsoncore.Document
			if d, err = argCollationDoc(req.Name, k, v); err != nil {
				return true, err
			}
			if sp, _ := collation.Parse(d); sp != nil {
				createColl = sp.Document()
				raw.AppendDocument(k, createColl)
			}
			return true, nil
		case "clusteredIndex":
			// Stored as mongod shows it (create_clustered.go).
			if clustered, err = parseClusteredIndex(req, v); err == nil && clustered != nil {
				raw.AppendDocument(k, clustered)
			}
			return true, err
		case "expireAfterSeconds":
			n, err := parseClusteredExpiry(req, v)
			if err == nil {
				expiry = &n
			}
			return true, err
		case "autoIndexId", "validator", "validationLevel", "validationAction",
			"storageEngine", "indexOptionDefaults", "flags":
		case "temp":
			// Refused when true (create_options.go); false is the default.
			return true, nil
		case "idIndex":
			// Validated only: Lode's _id index is the default one (with
			// the collection's collation), and listCollections shows it
			// as idIndex.
			hasIDIndex = true
			idIndexColl, err = checkIDIndexSpec(v)
			return true, err
		case "changeStreamPreAndPostImages":
			_, err = parseImagesOption(req.Name, v)
		case "viewOn":
			hasViewOn = true
			viewOn, err = argString(req.Name, k, v)
			return true, err
		case "pipeline":
			hasPipeline = true
			pipeline, err = argDocArray(req.Name, k, v)
			return true, err
		case "timeseries":
			tsSpec = v
			return true, nil
		case "encryptedFields":
			return true, errs.New(errs.CommandNotSupported, "create with '%s' is not supported by Lode", k)
		default:
			return false, nil
		}
		if err == nil && !genericArgs[k] {
			raw.AppendValue(k, v)
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if tsSpec.Type != 0 {
		if hasViewOn {
			return nil, errs.New(errs.InvalidOptions, "%s.%s: 'timeseries' is not allowed with 'viewOn'", req.DB, coll)
		}
		return nil, s.createTimeseries(ctx, req, coll, tsSpec, expiry, createColl)
	}
	if hasPipeline && !hasViewOn {
		return nil, errs.New(errs.InvalidOptions, "'pipeline' requires 'viewOn' to also be specified")
	}
	if hasViewOn {
		if viewOn == "" {
			return nil, errs.New(errs.BadValue, "'viewOn' cannot be empty")
		}
		if _, err := req.Cmd.LookupErr("idIndex"); err == nil {
			return nil, errs.New(errs.InvalidOptions, "'idIndex' is not allowed with 'viewOn': %s", req.Cmd.Lookup("idIndex").Document().String())
		}
		return nil, s.createView(ctx, req.DB, coll, viewOn, pipeline, createColl)
	}
	if err := refuseUnhonouredCreateOptions(req); err != nil {
		return nil, err
	}
	if clustered != nil {
		if err := checkClusteredCreate(s, req, opts.Capped, createColl); err != nil {
			return nil, err
		}
		if expiry != nil {
			raw.AppendInt64("expireAfterSeconds", *expiry)
		}
	}
	if hasIDIndex {
		if err := checkIDIndexCollation(idIndexColl, createColl); err != nil {
			return nil, err
		}
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		return nil, errs.New(errs.NamespaceExists, "namespace %s.%s already exists, but is a view on %s.%s rather than %s.",
			req.DB, coll, req.DB, v.ViewOn, req.DB)
	}
	if opts.Capped && opts.Size <= 0 {
		return nil, errs.New(errs.InvalidOptions, "the 'size' field is required when 'capped' is true")
	}
	opts.Raw = raw.Build()
	if u, ok := ctx.Value(createUUIDKey{}).(*[16]byte); ok && req.Name == "create" {
		opts.UUID = u // an applyOps entry's ui
	}
	if err := engine.ParseValidationOptions(req.Name, opts.Raw); err != nil {
		return nil, err
	}
	if err := s.eng.CreateCollectionCtx(ctx, req.DB, coll, opts); err != nil {
		return nil, err
	}
	return nil, nil
}
