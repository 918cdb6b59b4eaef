package server

import (
	"context"
	"crypto/sha256"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// local.oplog.rs as the catalog shows it: listCollections lists it as a
// capped collection bounded at the log's size, collStats and $collStats
// report the log's figures, and an aggregation reads it through the
// oplog source (oplogscan.go).

// oplogCatalog is the aggregation catalog with reads of local.oplog.rs
// going to the oplog. Every other namespace, and the catalog's optional
// interfaces ($currentOp, $changeStream, explain), are the engine's.
type oplogCatalog struct {
	*aggengine.Catalog
	s *Server
}

// withOplog wraps an aggregation catalog so that it reads the oplog.
func (s *Server) withOplog(c *aggengine.Catalog) agg.Catalog {
	if s.eng.Oplog() == nil {
		return c
	}
	return oplogCatalog{Catalog: c, s: s}
}

// Find implements agg.Catalog.
func (c oplogCatalog) Find(ctx context.Context, db, coll string, spec agg.FindSpec) (agg.Iterator, error) {
	if !c.s.oplogNS(db, coll) {
		return c.Catalog.Find(ctx, db, coll, spec)
	}
	return c.s.openOplog(ctx, engine.FindSpec{Filter: spec.Filter, Sort: spec.Sort, Projection: spec.Projection,
		Skip: spec.Skip, Limit: spec.Limit, Hint: spec.Hint})
}

// Count implements agg.Catalog.
func (c oplogCatalog) Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error) {
	if !c.s.oplogNS(db, coll) {
		return c.Catalog.Count(ctx, db, coll, filter, skip, limit, hint)
	}
	return c.s.countOplog(ctx, filter, skip, limit)
}

// Stats implements agg.Catalog.
func (c oplogCatalog) Stats(ctx context.Context, db, coll string) (agg.CollStats, error) {
	if !c.s.oplogNS(db, coll) {
		return c.Catalog.Stats(ctx, db, coll)
	}
	st, err := c.s.oplogStats()
	if err != nil {
		return agg.CollStats{}, err
	}
	return agg.CollStats{Count: st.Count, Size: st.Size, StorageSize: st.StorageSize, IndexSizes: map[string]int64{},
		Capped: true, MaxSize: st.MaxSize}, nil
}

// Indexes implements agg.Catalog: the oplog has none.
func (c oplogCatalog) Indexes(ctx context.Context, db, coll string) ([]agg.IndexInfo, error) {
	if !c.s.oplogNS(db, coll) {
		return c.Catalog.Indexes(ctx, db, coll)
	}
	return nil, nil
}

// FindPartitions implements agg.Partitioner: the oplog is read by one
// source.
func (c oplogCatalog) FindPartitions(ctx context.Context, db, coll string, spec agg.FindSpec, n int) ([]agg.Iterator, error) {
	if c.s.oplogNS(db, coll) {
		return nil, nil
	}
	return c.Catalog.FindPartitions(ctx, db, coll, spec, n)
}

// oplogStats are the oplog's figures as collStats reports a collection's:
// a capped collection with no index, bounded at the log's size.
func (s *Server) oplogStats() (engine.CollectionStats, error) {
	st, err := s.eng.Oplog().Stats()
	if err != nil {
		return engine.CollectionStats{}, err
	}
	return engine.CollectionStats{Count: st.Count, Size: st.Bytes, StorageSize: st.Bytes,
		IndexSizes: map[string]int64{}, Capped: true, MaxSize: st.MaxBytes}, nil
}

// collectionStats returns the figures of db.coll for collStats.
func (s *Server) collectionStats(db, coll string) (engine.CollectionStats, error) {
	if s.oplogNS(db, coll) {
		return s.oplogStats()
	}
	return s.eng.CollectionStats(db, coll)
}

// listCollections returns db's collections sorted by name, with
// local.oplog.rs among local's.
func (s *Server) listCollections(db string) ([]engine.CollectionInfo, error) {
	colls, err := s.eng.ListCollections(db)
	if err != nil || db != engine.OplogDB || s.eng.Oplog() == nil {
		return colls, err
	}
	st, err := s.eng.Oplog().Stats()
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder().AppendBoolean("capped", true)
	appendNumber(b, "size", st.MaxBytes)
	info := engine.CollectionInfo{Name: engine.OplogColl, Type: "collection", Options: b.Build(), UUID: oplogUUID}
	i, _ := slices.BinarySearchFunc(colls, info.Name, func(c engine.CollectionInfo, name string) int { return strings.Compare(c.Name, name) })
	return slices.Insert(colls, i, info), nil
}

// oplogUUID is local.oplog.rs's collection UUID: fixed, as the log is
// never dropped or recreated (a version-4 UUID from a hash of the name).
var oplogUUID = func() (u [16]byte) {
	h := sha256.Sum256([]byte(engine.OplogDB + "." + engine.OplogColl))
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}()

// errNoOplog is mongod's answer to a command on the oplog when there is
// none (lode serve --oplog-size-mb 0).
func errNoOplog() error {
	return errs.New(errs.NamespaceNotFound, "oplog does not exist")
}
