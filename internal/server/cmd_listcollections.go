package server

import (
	"context"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/query"
)

func init() {
	register(admin(cmdListCollections, checkedBy(listCollectionsCheck), "listCollections").inAPIV1())
}

// cmdListCollections lists a database's collections as a cursor. With
// authorizedCollections under authorization it lists only the collections
// the user has some privilege on, as mongod does.
func cmdListCollections(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	var filter *query.Filter
	nameOnly, authorizedColls := false, false
	var batchSize int64
	hasBatch := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "filter":
			if v.Type == bsoncore.TypeNull {
				return true, nil
			}
			var d bsoncore.Document
			if d, err = argDoc(req.Name, k, v); err == nil {
				filter, err = query.Parse(d)
			}
		case "nameOnly":
			nameOnly, err = argBool(req.Name, k, v)
		case "cursor":
			batchSize, hasBatch, err = parseCursorOpt(req.Name, v)
		case "authorizedCollections":
			authorizedColls, err = argBool(req.Name, k, v)
		case "includePendingDrops":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	var g *auth.Grants
	if authorizedColls {
		if g, err = s.connGrants(ctx, req); err != nil {
			return nil, err
		}
	}
	colls, err := s.eng.ListCollectionsWithOplog(req.DB)
	if err != nil {
		return nil, err
	}
	var docs []bsoncore.Document
	for _, c := range colls {
		if g != nil && !g.AnyOn(auth.CollResource(req.DB, c.Name)) {
			continue
		}
		b := bsoncore.NewDocumentBuilder().
			AppendString("name", c.Name).
			AppendString("type", c.Type)
		if !nameOnly {
			opts := c.Options
			if len(opts) == 0 {
				opts = bsoncore.NewDocumentBuilder().Build()
			}
			b.AppendDocument("options", opts).
				AppendDocument("info", bsoncore.NewDocumentBuilder().
					AppendBoolean("readOnly", false).
					AppendBinary("uuid", bson.TypeBinaryUUID, c.UUID[:]).Build())
			_, clusteredErr := opts.LookupErr("clusteredIndex")
			// The oplog has no _id index, a clustered collection its
			// clustered index (options.clusteredIndex) instead.
			if !engine.IsOplogNS(req.DB, c.Name) && clusteredErr != nil {
				idb := bsoncore.NewDocumentBuilder().
					AppendInt32("v", 2).
					AppendDocument("key", bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()).
					AppendString("name", "_id_")
				if cv, err := opts.LookupErr("collation"); err == nil {
					// The _id index takes the collection's collation.
					idb.AppendValue("collation", cv)
				}
				b.AppendDocument("idIndex", idb.Build())
			}
		}
		doc := b.Build()
		if filter != nil && !filter.Match(doc) {
			continue
		}
		docs = append(docs, doc)
	}
	views, err := s.viewCollectionInfos(ctx, req.DB) // views.go
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		if g != nil && !g.AnyOn(auth.CollResource(req.DB, v.Name)) {
			continue
		}
		if o := s.timeseriesOfView(req.DB, v); o != nil {
			doc := timeseriesListEntry(v.Name, o, s.eng.CollectionOptions(req.DB, v.ViewOn), nameOnly) // create_timeseries.go
			if filter == nil || filter.Match(doc) {
				docs = append(docs, doc)
			}
			continue
		}
		b := bsoncore.NewDocumentBuilder().
			AppendString("name", v.Name).
			AppendString("type", "view")
		if !nameOnly {
			opts := viewDoc(req.DB, v.Name, v.ViewOn, v.Pipeline, v.Collation)
			elems, _ := opts.Elements()
			ob := bsoncore.NewDocumentBuilder()
			for _, el := range elems[1:] { // without _id
				ob.AppendValue(el.Key(), el.Value())
			}
			b.AppendDocument("options", ob.Build()).
				AppendDocument("info", bsoncore.NewDocumentBuilder().AppendBoolean("readOnly", true).Build())
		}
		doc := b.Build()
		if filter != nil && !filter.Match(doc) {
			continue
		}
		docs = append(docs, doc)
	}
	if len(views) > 0 {
		sort.SliceStable(docs, func(i, j int) bool {
			a, _ := docs[i].Lookup("name").StringValueOK()
			b, _ := docs[j].Lookup("name").StringValueOK()
			return a < b
		})
	}
	c := cursor.New(ns(req.DB, "$cmd.listCollections"), &sliceSource{docs: docs})
	return s.firstBatch(ctx, c, batchSize, hasBatch, false)
}
