package agg

import (
	"os"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	registerStage("$collStats", stageDef{parse: parseCollStats, access: onNS("collStats"), sources: noSources, initial: true, where: collectionReport, explain: explainNone, shape: shapeExpr})
	registerStage("$indexStats", stageDef{parse: parseIndexStats, access: onNS("indexStats"), sources: noSources, initial: true, where: collectionReport, explain: explainNone, shape: shapeExpr})
	{
		w := anywhere
		w.apiV1 = no
		registerStage("$listSearchIndexes", stageDef{parse: parseListSearchIndexes, access: onNS("listSearchIndexes"), sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
}

// parseListSearchIndexes: outside Atlas, mongod 7.0 knows the stage and
// refuses it.
func parseListSearchIndexes(bsoncore.Value, *ParseContext) ([]stage, error) {
	return nil, errs.New(errs.Location6047401, "$listSearchIndexes stage is only allowed on MongoDB Atlas")
}

// collStatsStage is $collStats (count and storageStats; latencyStats and
// queryExecStats render empty sections).
type collStatsStage struct {
	raw     bsoncore.Value
	count   bool
	storage bool
	latency bool
	scale   int64
}

func parseCollStats(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location5447000, "$collStats must take a nested object but found: %s", v.String())
	}
	c := &collStatsStage{raw: v, scale: 1}
	els, _ := d.Elements()
	for _, el := range els {
		switch el.Key() {
		case "count":
			c.count = true
		case "storageStats":
			c.storage = true
			if sd, ok := el.Value().DocumentOK(); ok {
				if s := sd.Lookup("scale"); s.Type != 0 {
					n, ok := s.AsInt64OK()
					if !ok || n < 1 {
						return nil, errs.New(errs.Location51024, "BSON field 'scale' value must be >= 1, actual value '%s'", s.String())
					}
					c.scale = n
				}
			}
		case "latencyStats":
			c.latency = true
		case "queryExecStats":
		default:
			return nil, errs.New(errs.Location40415, "BSON field '$collStats.%s' is an unknown field.", el.Key())
		}
	}
	return []stage{c}, nil
}

func (c *collStatsStage) name() string            { return "$collStats" }
func (c *collStatsStage) spec() bsoncore.Document { return specDoc("$collStats", c.raw) }
func (c *collStatsStage) source()                 {}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return h + ":27017"
}

func (c *collStatsStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	st, err := rc.cat.Stats(rc.ctx, rc.pc.DB, rc.pc.Coll)
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("ns", rc.pc.DB+"."+rc.pc.Coll).
		AppendString("host", hostname()).
		AppendDateTime("localTime", time.Now().UnixMilli())
	if c.latency {
		z := bsoncore.NewDocumentBuilder().AppendInt64("latency", 0).AppendInt64("ops", 0).Build()
		b.AppendDocument("latencyStats", bsoncore.NewDocumentBuilder().
			AppendDocument("reads", z).AppendDocument("writes", z).
			AppendDocument("commands", z).AppendDocument("transactions", z).Build())
	}
	if c.storage {
		avg := int64(0)
		if st.Count > 0 {
			avg = st.Size / st.Count
		}
		names := make([]string, 0, len(st.IndexSizes))
		for n := range st.IndexSizes {
			names = append(names, n)
		}
		sort.Strings(names)
		ib := bsoncore.NewDocumentBuilder()
		for _, n := range names {
			ib.AppendInt64(n, st.IndexSizes[n]/c.scale)
		}
		sb := bsoncore.NewDocumentBuilder().
			AppendInt64("size", st.Size/c.scale).
			AppendInt64("count", st.Count).
			AppendInt64("avgObjSize", avg).
			AppendInt64("storageSize", st.StorageSize/c.scale).
			AppendInt64("freeStorageSize", 0).
			AppendBoolean("capped", st.Capped)
		if st.Capped {
			// As collStats: a capped collection's bounds (mongosh's stats()
			// and db.getReplicationInfo() read maxSize).
			if st.Max > 0 {
				sb.AppendInt64("max", st.Max)
			}
			sb.AppendInt64("maxSize", st.MaxSize/c.scale)
		}
		if st.Timeseries != nil {
			sb.AppendDocument("timeseries", st.Timeseries)
		}
		b.AppendDocument("storageStats", sb.
			AppendInt32("nindexes", int32(st.NIndexes)).
			AppendInt64("totalIndexSize", st.TotalIndexSize/c.scale).
			AppendInt64("totalSize", (st.StorageSize+st.TotalIndexSize)/c.scale).
			AppendDocument("indexSizes", ib.Build()).
			AppendInt32("scaleFactor", int32(c.scale)).
			Build())
	}
	if c.count {
		b.AppendInt64("count", st.Count)
	}
	return &sliceIter{docs: []bsoncore.Document{b.Build()}}, nil
}

// indexStatsStage is $indexStats: one document per index with the
// engine's access counters (operations whose chosen plan scanned it since
// the engine opened or the index was created; a catalog that does not
// track them gives ops 0 since the time of the call).
type indexStatsStage struct{ raw bsoncore.Value }

func parseIndexStats(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	if d, ok := v.DocumentOK(); !ok || len(d) > 5 {
		return nil, errs.New(errs.Location28803, "The $indexStats stage specification must be an empty object")
	}
	return []stage{&indexStatsStage{raw: v}}, nil
}

func (s *indexStatsStage) name() string            { return "$indexStats" }
func (s *indexStatsStage) spec() bsoncore.Document { return specDoc("$indexStats", s.raw) }
func (s *indexStatsStage) source()                 {}

func (s *indexStatsStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	idx, err := rc.cat.Indexes(rc.ctx, rc.pc.DB, rc.pc.Coll)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixMilli()
	var docs []bsoncore.Document
	for _, ix := range idx {
		since := now
		if !ix.Since.IsZero() {
			since = ix.Since.UnixMilli()
		}
		acc := bsoncore.NewDocumentBuilder().AppendInt64("ops", ix.Ops).AppendDateTime("since", since).Build()
		b := bsoncore.NewDocumentBuilder().
			AppendString("name", ix.Name).
			AppendDocument("key", ix.Key).
			AppendString("host", hostname()).
			AppendDocument("accesses", acc)
		if ix.Spec != nil {
			b.AppendDocument("spec", ix.Spec)
		}
		docs = append(docs, b.Build())
	}
	return &sliceIter{docs: docs}, nil
}

var _ = expr.Null
