package server

import (
	"context"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdServerStatus, requires(clusterNeeds(auth.ActServerStatus)), "serverStatus"))
}

// cmdServerStatus reports process, connection and operation counters.
func cmdServerStatus(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	up := time.Since(s.started)
	resident, virtual := processMemory()
	st := &s.stats
	budget := s.eng.Params().Budget
	b := bsoncore.NewDocumentBuilder().
		AppendString("host", s.host).
		AppendString("version", MongoVersion).
		AppendString("process", "mongod").
		AppendInt64("pid", int64(os.Getpid())).
		AppendInt64("uptime", int64(up.Seconds())).
		AppendInt64("uptimeMillis", up.Milliseconds()).
		AppendInt64("uptimeEstimate", int64(up.Seconds())).
		AppendDateTime("localTime", time.Now().UnixMilli()).
		AppendDocument("connections", bsoncore.NewDocumentBuilder().
			AppendInt32("current", int32(st.current.Load())).
			AppendInt32("available", int32(max(s.maxConnections()-st.current.Load(), 0))).
			AppendInt32("totalCreated", int32(st.total.Load())).
			AppendInt64("rejected", st.rejected.Load()).
			AppendInt32("active", int32(st.current.Load())).Build()).
		AppendDocument("opcounters", bsoncore.NewDocumentBuilder().
			AppendInt64("insert", st.insert.Load()).
			AppendInt64("query", st.query.Load()).
			AppendInt64("update", st.update.Load()).
			AppendInt64("delete", st.delete.Load()).
			AppendInt64("getmore", st.getmore.Load()).
			AppendInt64("command", st.cmd.Load()).Build()).
		AppendDocument("opLatencies", opLatenciesDoc(st)).
		AppendDocument("mem", bsoncore.NewDocumentBuilder().
			AppendInt32("bits", 64).
			AppendInt32("resident", int32(resident)).
			AppendInt32("virtual", int32(virtual)).
			AppendBoolean("supported", true).Build())
	if sec, ok := s.securityStatus(); ok { // TLS only (tlsconfig.go)
		b.AppendDocument("security", sec)
	}
	if s.replSet() {
		b.AppendDocument("repl", s.replStatusDoc(req)) // replstate.go
	}
	lode := bsoncore.NewDocumentBuilder().
		AppendDocument("storage", storageMetricsDoc(s)).
		AppendDocument("memoryBudget", bsoncore.NewDocumentBuilder().
			AppendInt64("limit", budget.Limit()).
			AppendInt64("used", budget.Used()).
			AppendInt64("refused", budget.Refused()).Build())
	if ol, ok := s.oplogStatusDoc(); ok {
		lode.AppendDocument("oplog", ol)
	}
	b.AppendDocument("logicalSessionRecordCache", s.sessionCacheDoc()) // sessions_coll.go
	return b.AppendDocument("metrics", s.metricsDoc()).
		AppendDocument("storageEngine", bsoncore.NewDocumentBuilder().
			AppendString("name", "lode").
			AppendBoolean("supportsCommittedReads", true).
			AppendBoolean("persistent", true).Build()).
		AppendDocument("lode", lode.Build()).
		Build(), nil
}

// storageMetricsDoc renders Pebble's figures (serverStatus.lode.storage),
// Lode's counterpart of mongod's wiredTiger section: whether flushes,
// compactions or write stalls are behind a latency spike.
func storageMetricsDoc(s *Server) bsoncore.Document {
	m := s.eng.StorageMetrics()
	return bsoncore.NewDocumentBuilder().
		AppendInt64("flushes", m.Flushes).
		AppendInt64("flushesInProgress", m.FlushesInProgress).
		AppendInt64("compactions", m.Compactions).
		AppendInt64("compactionsInProgress", m.CompactionsInProgress).
		AppendInt64("compactionDebtBytes", int64(m.CompactionDebtBytes)).
		AppendInt64("l0Files", m.L0Files).
		AppendInt32("l0Sublevels", m.L0Sublevels).
		AppendInt32("readAmplification", int32(m.ReadAmp)).
		AppendInt64("memtableBytes", int64(m.MemtableBytes)).
		AppendInt64("memtables", m.Memtables).
		AppendInt64("blockCacheBytes", m.BlockCacheBytes).
		AppendInt64("blockCacheMaxBytes", m.BlockCacheMaxBytes).
		AppendInt64("blockCacheHits", m.BlockCacheHits).
		AppendInt64("blockCacheMisses", m.BlockCacheMisses).
		AppendInt64("openTables", m.OpenTables).
		AppendInt64("openTablesMax", m.OpenTablesMax).
		AppendInt64("tableCacheHits", m.TableCacheHits).
		AppendInt64("tableCacheMisses", m.TableCacheMisses).
		AppendInt64("writeStalls", m.WriteStalls).
		AppendInt64("writeStallMillis", m.WriteStallMillis).
		AppendInt64("walBytes", int64(m.WALBytes)).
		AppendInt64("ingestions", m.Ingestions).
		AppendInt64("commitsByIngestion", m.CommitsByIngestion).
		Build()
}

// metricsDoc renders serverStatus.metrics: document counters, TTL monitor
// counters and Lode's durability counters.
func (s *Server) metricsDoc() bsoncore.Document {
	ds := s.eng.DocumentStats()
	ts := s.eng.TTLStats()
	ss := s.eng.StorageStats()
	return bsoncore.NewDocumentBuilder().
		AppendDocument("document", bsoncore.NewDocumentBuilder().
			AppendInt64("deleted", ds.Deleted).
			AppendInt64("inserted", ds.Inserted).
			AppendInt64("returned", s.stats.docsReturned.Load()).
			AppendInt64("updated", ds.Updated).Build()).
		AppendDocument("ttl", bsoncore.NewDocumentBuilder().
			AppendInt64("deletedDocuments", ts.DeletedDocuments).
			AppendInt64("passes", ts.Passes).Build()).
		AppendDocument("lode", bsoncore.NewDocumentBuilder().
			AppendInt64("commits", int64(ss.Commits)).
			AppendInt64("syncs", int64(ss.Syncs)).
			AppendInt64("syncWaits", int64(ss.SyncWaits)).
			AppendInt64("walDirectWrites", int64(ss.WALDirectWrites)).Build()).
		Build()
}

// opLatenciesDoc renders serverStatus.opLatencies as mongod 7.0 does:
// each class's total latency in microseconds and its count (Lode has no
// queryable encryption, and reports transactions as no operations: a
// transaction's statements are counted in their own classes).
func opLatenciesDoc(st *stats) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for c := range st.lat {
		b.AppendDocument(latencyClassNames[c], bsoncore.NewDocumentBuilder().
			AppendInt64("latency", st.lat[c].micros.Load()).
			AppendInt64("ops", st.lat[c].count()).
			AppendInt64("queryableEncryptionLatencyMicros", 0).Build())
	}
	return b.AppendDocument("transactions", bsoncore.NewDocumentBuilder().
		AppendInt64("latency", 0).AppendInt64("ops", 0).
		AppendInt64("queryableEncryptionLatencyMicros", 0).Build()).Build()
}
