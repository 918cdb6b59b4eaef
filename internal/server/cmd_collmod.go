package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"collMod"}, handler: cmdCollMod, authz: authzRule{needs: collNeeds(auth.ActCollMod), check: viewDefCheck(auth.ActCollMod)},
		api: apiV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: yes, explain: notExplained, applyOps: yes,
		observe: observed(opCommand, onColl)})
}

// cmdCollMod changes collection options. Lode supports changing a TTL
// index's expireAfterSeconds (index: {keyPattern | name,
// expireAfterSeconds}), changeStreamPreAndPostImages, and the validator,
// validationLevel and validationAction of document validation.
func cmdCollMod(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	var (
		images   *bool // changeStreamPreAndPostImages.enabled
		name     string
		key      bsoncore.Document
		secs     int64
		hasSecs  bool
		hasIndex bool
		flags    engine.IndexFlagChange
		hasFlags bool
		valid    = bsoncore.NewDocumentBuilder()
		hasValid bool
		// viewOn and pipeline redefine a view.
		viewOn      *string
		pipeline    []bsoncore.Document
		hasPipeline bool
		// expiry is a clustered collection's expireAfterSeconds (nil
		// inside: "off"); hasExpiry says it was given.
		expiry    *int64
		hasExpiry bool
		// tsMod is a time series collection's new bucketing.
		tsMod collModTS
		hasTS bool
	)
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "viewOn":
			on, err := argString(req.Name, k, v)
			viewOn = &on
			return true, err
		case "pipeline":
			var err error
			pipeline, err = argDocArray(req.Name, k, v)
			hasPipeline = true
			return true, err
		case "index":
			d, ok := v.DocumentOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "object")
			}
			hasIndex = true
			elems, _ := d.Elements()
			for _, el := range elems {
				x := el.Value()
				var err error
				switch el.Key() {
				case "name":
					name, err = argString(req.Name, "index.name", x)
				case "keyPattern":
					kd, ok := x.DocumentOK()
					if !ok {
						err = wrongType(req.Name, "index.keyPattern", x, "object")
					}
					key = kd
				case "expireAfterSeconds":
					secs, err = argInt64(req.Name, "index.expireAfterSeconds", x)
					hasSecs = true
				case "hidden", "prepareUnique":
					var on bool
					if on, err = argBool(req.Name, "index."+el.Key(), x); err == nil {
						if el.Key() == "hidden" {
							flags.Hidden = &on
						} else {
							flags.PrepareUnique = &on
						}
						hasFlags = true
					}
				case "unique", "forceNonUnique":
					var on bool
					if on, err = argBool(req.Name, "index."+el.Key(), x); err == nil {
						if !on {
							err = errs.New(errs.BadValue, "collMod %s can only be true", el.Key())
						} else if el.Key() == "unique" {
							flags.Unique = true
						} else {
							flags.ForceNonUnique = true
						}
						hasFlags = true
					}
				default:
					err = errs.New(errs.Location40415, "BSON field 'collMod.index.%s' is an unknown field.", el.Key())
				}
				if err != nil {
					return true, err
				}
			}
			return true, nil
		case "changeStreamPreAndPostImages":
			on, err := parseImagesOption(req.Name, v)
			images = &on
			return true, err
		case "validator", "validationLevel", "validationAction":
			valid.AppendValue(k, v)
			hasValid = true
			return true, nil
		case "dryRun":
			// A unique conversion's check without the conversion; Lode
			// only converts for real.
			on, err := argBool(req.Name, k, v)
			if err == nil && on {
				err = errs.New(errs.NotImplemented, "collMod.dryRun is not supported by Lode: it has no dry run of a unique conversion")
			}
			return true, err
		case "collectionUUID":
			return true, s.argCollectionUUID(req.Name, req.DB, coll, v)
		case "isTimeseriesNamespace":
			return true, refuseTimeseriesNS(req.Name, v)
		case "expireAfterSeconds":
			hasExpiry = true
			if str, ok := v.StringValueOK(); ok {
				if str != "off" {
					return true, errs.New(errs.InvalidOptions, "Invalid value for 'expireAfterSeconds'")
				}
				return true, nil
			}
			n, err := parseClusteredExpiry(req, v)
			expiry = &n
			return true, err
		case "timeseries":
			m, err := parseCollModTimeseries(req, v) // create_timeseries.go
			tsMod, hasTS = m, true
			return true, err
		case "cappedSize", "cappedMax", "timeseriesBucketsMayHaveMixedSchemaData":
			return true, errs.New(errs.NotImplemented, "collMod.%s is not supported by Lode", k)
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	view, err := s.lookupView(ctx, req.DB, coll)
	if err != nil {
		return nil, err
	}
	if view != nil {
		if o := s.timeseriesOfView(req.DB, view); o != nil {
			return nil, s.collModTimeseries(ctx, req, coll, o, tsMod, expiry, hasExpiry)
		}
		// The options only a collection has, in the order mongod's
		// parseCollModRequest checks them.
		for _, k := range []string{"index", "validator", "validationLevel", "validationAction", "changeStreamPreAndPostImages"} {
			if _, err := req.Cmd.LookupErr(k); err == nil {
				return nil, errs.New(errs.InvalidOptions, "option not supported on a view: %s", k)
			}
		}
		if viewOn != nil || hasPipeline {
			return nil, s.modifyView(ctx, req.DB, coll, view, viewOn, pipeline, hasPipeline)
		}
		return nil, nil
	}
	if hasTS {
		return nil, errs.New(errs.InvalidOptions, "option only supported on a time-series collection: timeseries")
	}
	if viewOn != nil || hasPipeline {
		if !s.eng.HasCollection(req.DB, coll) {
			return nil, errs.New(errs.NamespaceNotFound, "ns does not exist: %s.%s", req.DB, coll)
		}
		if hasPipeline {
			return nil, errs.New(errs.InvalidOptions, "option only supported on a view: pipeline")
		}
		return nil, errs.New(errs.InvalidOptions, "option only supported on a view: viewOn")
	}
	if hasValid {
		if err := s.eng.SetValidation(req.DB, coll, valid.Build()); err != nil {
			return nil, err
		}
	}
	if images != nil {
		if err := s.eng.SetChangeStreamImages(req.DB, coll, *images); err != nil {
			return nil, err
		}
	}
	if hasExpiry {
		if err := s.eng.SetClusteredExpiry(req.DB, coll, expiry); err != nil {
			return nil, err
		}
	}
	b := bsoncore.NewDocumentBuilder()
	if !hasIndex {
		if !hasValid && images == nil && !hasExpiry {
			if err := s.eng.TouchCollMod(req.DB, coll); err != nil {
				return nil, err
			}
		}
		return b.Build(), nil
	}
	if (name == "") == (key == nil) {
		return nil, errs.New(errs.InvalidOptions, "Must specify either index name or key pattern.")
	}
	if !hasSecs && !hasFlags {
		return nil, errs.New(errs.InvalidOptions, "no expireAfterSeconds, hidden, prepareUnique, unique or forceNonUnique field")
	}
	if flags.Unique && flags.ForceNonUnique {
		return nil, errs.New(errs.InvalidOptions, "collMod cannot make an index both unique and non-unique")
	}
	if hasFlags {
		fr, err := s.eng.ModifyIndexFlags(req.DB, coll, name, key, flags)
		if err != nil {
			return nil, err
		}
		if flags.Hidden != nil {
			b.AppendBoolean("hidden_old", fr.HiddenOld).AppendBoolean("hidden_new", *flags.Hidden)
		}
		if flags.PrepareUnique != nil {
			b.AppendBoolean("prepareUnique_old", fr.PrepareUniqueOld).AppendBoolean("prepareUnique_new", *flags.PrepareUnique)
		}
		if fr.UniqueNew {
			b.AppendBoolean("unique_new", true)
		}
		if fr.ForceNonUniqueNew {
			b.AppendBoolean("forceNonUnique_new", true)
		}
	}
	if hasSecs {
		ch, err := s.eng.SetExpireAfterSeconds(req.DB, coll, name, key, secs)
		if err != nil {
			return nil, err
		}
		if ch.Old != nil {
			b.AppendInt64("expireAfterSeconds_old", *ch.Old)
		}
		b.AppendInt64("expireAfterSeconds_new", ch.New)
	}
	return b.Build(), nil
}

// parseImagesOption reads changeStreamPreAndPostImages: {enabled: bool}
// (create and collMod).
func parseImagesOption(cmd string, v bsoncore.Value) (bool, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return false, wrongType(cmd, "changeStreamPreAndPostImages", v, "object")
	}
	enabled, seen := false, false
	els, _ := d.Elements()
	for _, el := range els {
		if el.Key() != "enabled" {
			return false, errs.New(errs.Location40415, "BSON field '%s.changeStreamPreAndPostImages.%s' is an unknown field.", cmd, el.Key())
		}
		b, ok := el.Value().BooleanOK()
		if !ok {
			return false, wrongType(cmd, "changeStreamPreAndPostImages.enabled", el.Value(), "bool")
		}
		enabled, seen = b, true
	}
	if !seen {
		return false, errs.New(errs.Location40414, "BSON field '%s.changeStreamPreAndPostImages.enabled' is missing but a required field", cmd)
	}
	return enabled, nil
}
