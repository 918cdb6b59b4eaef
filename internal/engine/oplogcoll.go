package engine

import (
	"context"
	"crypto/sha256"
	"math"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/storage"
)

// local.oplog.rs as a system collection. The engine holds a descriptor
// for it beside the catalog (a capped collection with no index, its
// fixed UUID) whose records are the oplog's entries: the reads of the
// catalog's collections (Find, Count, aggregation) resolve the namespace
// with readColl, which gives that descriptor and a record source, the
// log's key range bounded by the filter's ts range and by the log's
// visibility point, so that no reader sees an entry before an older one
// has committed. The ordinary planner and executor then read it: COLLSCAN
// over the source either way ($natural), filter, sort, skip, limit,
// projection. A tailable find follows the log as it grows (oplogtail.go).
// Writes to it are refused (oplogns.go).

// newOplogColl returns the oplog's collection descriptor.
func newOplogColl() *collection {
	c := &collection{collDesc: collDesc{DB: OplogDB, Name: OplogColl, ID: math.MaxUint64, UUID: oplogUUID,
		Options: emptyDoc, Capped: true}, state: &collState{}}
	c.Seal()
	return c
}

// oplogUUID is local.oplog.rs's collection UUID: fixed, as the log is
// never dropped or recreated (a version-4 UUID from a hash of the name).
var oplogUUID = func() (u [16]byte) {
	h := sha256.Sum256([]byte(OplogDB + "." + OplogColl))
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}()

// isOplog reports whether db.coll is the oplog's namespace and the oplog
// is on.
func (e *Engine) isOplog(db, coll string) bool { return e.oplog != nil && IsOplogNS(db, coll) }

// readColl resolves db.coll for a read: the catalog's collection (nil if
// none) and no record source, or the oplog's descriptor and the entries
// the filter f can match up to the visibility point. The caller opens
// its snapshot after it, so that every entry up to that point is in it.
func (e *Engine) readColl(ctx context.Context, db, coll string, f *query.Filter) (*collection, storage.RecordSource, error) {
	if !e.isOplog(db, coll) {
		return e.cat.Load().lookup(db, coll), nil, nil
	}
	if TxnFrom(ctx) != nil {
		return nil, nil, errOplogInTxn()
	}
	lo, hi := oplog.TS(0), oplog.TS(math.MaxUint64)
	tsBounds(f.Root(), &lo, &hi)
	vis := e.oplog.VisibleTS()
	return e.oplogColl, oplog.Records{Lo: lo, Hi: min(hi, vis)}, nil
}

func errOplogInTxn() error {
	return errs.New(errs.OperationNotSupportedInTransaction, "Cannot run command against the '%s' database in a transaction.", OplogDB)
}

// oplogFindSpec checks a find on the oplog and rewrites a sort on ts
// alone as the $natural order it is (timestamps are unique and ordered
// as the log is), so that it reads in order rather than sorting.
func oplogFindSpec(ctx context.Context, spec FindSpec) (FindSpec, error) {
	if TxnFrom(ctx) != nil {
		return spec, errOplogInTxn()
	}
	if len(spec.Sort) <= 5 {
		return spec, nil
	}
	s, err := query.ParseSort(spec.Sort)
	if err != nil {
		return spec, err
	}
	if len(s.Fields) != 1 || s.Fields[0].Path != "ts" || s.Fields[0].Meta != "" {
		return spec, nil
	}
	if spec.Tailable {
		return spec, errs.New(errs.BadValue, "error processing query: ns=%s.%s cannot use tailable option with a sort other than {$natural: 1}", OplogDB, OplogColl)
	}
	dir := int32(1)
	if s.Fields[0].Desc {
		dir = -1
	}
	spec.Sort = bsoncore.NewDocumentBuilder().AppendInt32("$natural", dir).Build()
	return spec, nil
}

// tsBounds narrows [lo, hi] to the timestamps a filter's top-level
// conditions on ts allow (mongodump's {ts: {$gte: a, $lte: b}}), so that
// a read starts and stops where they do, as mongod's oplog start-point
// search does. The filter is still applied to every entry.
func tsBounds(n query.Node, lo, hi *oplog.TS) {
	switch n := n.(type) {
	case *query.AndNode:
		for _, c := range n.Children {
			tsBounds(c, lo, hi)
		}
	case *query.CompareNode:
		if n.Path != "ts" || n.Value.Type != bsoncore.TypeTimestamp {
			return
		}
		t, i := n.Value.Timestamp()
		v := oplog.MakeTS(t, i)
		switch n.Op {
		case query.OpEQ:
			*lo, *hi = max(*lo, v), min(*hi, v)
		case query.OpGT:
			if v == math.MaxUint64 {
				*lo, *hi = 1, 0 // nothing
				return
			}
			*lo = max(*lo, v+1)
		case query.OpGTE:
			*lo = max(*lo, v)
		case query.OpLT:
			if v == 0 {
				*lo, *hi = 1, 0
				return
			}
			*hi = min(*hi, v-1)
		case query.OpLTE:
			*hi = min(*hi, v)
		}
	}
}

// oplogStats are the oplog's figures as collStats reports a collection's:
// a capped collection with no index, bounded at the log's size.
func (e *Engine) oplogStats() (CollectionStats, error) {
	st, err := e.oplog.Stats()
	if err != nil {
		return CollectionStats{}, err
	}
	return CollectionStats{Count: st.Count, Size: st.Bytes, StorageSize: st.Bytes,
		IndexSizes: map[string]int64{}, Capped: true, MaxSize: st.MaxBytes}, nil
}

// oplogInfo is local.oplog.rs as listCollections shows it: a capped
// collection bounded at the log's size.
func (e *Engine) oplogInfo() (CollectionInfo, error) {
	st, err := e.oplog.Stats()
	if err != nil {
		return CollectionInfo{}, err
	}
	b := bsoncore.NewDocumentBuilder().AppendBoolean("capped", true)
	if mb := st.MaxBytes; mb < 1<<31 {
		b.AppendInt32("size", int32(mb))
	} else {
		b.AppendInt64("size", mb)
	}
	return CollectionInfo{Name: OplogColl, Type: "collection", Options: b.Build(), UUID: oplogUUID}, nil
}

// errOplogDistinct refuses distinct on the oplog.
func errOplogDistinct() error {
	return errs.New(errs.NotImplemented, "distinct on %s.%s is not supported by Lode; use aggregate with $match and $group", OplogDB, OplogColl)
}

// ListCollectionsWithOplog is ListCollections with local.oplog.rs among
// local's collections when the oplog is on, as listCollections shows
// them (dbStats and the other callers of ListCollections count the
// catalog's own collections only).
func (e *Engine) ListCollectionsWithOplog(db string) ([]CollectionInfo, error) {
	colls, err := e.ListCollections(db)
	if err != nil || db != OplogDB || e.oplog == nil {
		return colls, err
	}
	info, err := e.oplogInfo()
	if err != nil {
		return nil, err
	}
	i, _ := slices.BinarySearchFunc(colls, info.Name, func(c CollectionInfo, name string) int { return strings.Compare(c.Name, name) })
	return slices.Insert(colls, i, info), nil
}
