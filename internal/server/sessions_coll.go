package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sort"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// The logical sessions collection, config.system.sessions, as mongod's
// LogicalSessionCache keeps it: every logicalSessionRefreshMillis (and on
// refreshLogicalSessionCacheNow) the sessions used since the last refresh
// are upserted into it with lastUse set to the refresh time, the sessions
// endSessions ended are deleted from it, and the cursors of ended
// sessions are killed. Its TTL index lsidTTLIndex on lastUse, with
// expireAfterSeconds localLogicalSessionTimeoutMinutes*60, lets the TTL
// monitor delete the records of sessions idle that long; the in-memory
// sessions expire after the same time (session.go reapOnce), aborting
// their transactions and killing their cursors.
const (
	sessionsDB      = "config"
	sessionsColl    = "system.sessions"
	sessionsTTLName = "lsidTTLIndex"

	// DefaultSessionRefresh is mongod's logicalSessionRefreshMillis.
	DefaultSessionRefresh = 5 * time.Minute
)

// SetStartupParameter applies a startup parameter, as mongod's
// --setParameter name=value: enableTestCommands (1, 0, true or false),
// logicalSessionRefreshMillis (at least 1) and
// localLogicalSessionTimeoutMinutes (at least 1). Runtime parameters are
// set with the setParameter command.
func (c *Config) SetStartupParameter(name, value string) error {
	switch name {
	case "enableTestCommands":
		switch value {
		case "1", "true":
			c.TestCommands = true
		case "0", "false":
			c.TestCommands = false
		default:
			return fmt.Errorf("bad value for enableTestCommands: %q (want 1, 0, true or false)", value)
		}
	case "logicalSessionRefreshMillis", "localLogicalSessionTimeoutMinutes":
		n, err := strconv.ParseInt(value, 10, 32)
		if err != nil || n < 1 {
			return fmt.Errorf("bad value for %s: %q (want an integer of at least 1)", name, value)
		}
		if name == "logicalSessionRefreshMillis" {
			c.SessionRefresh = time.Duration(n) * time.Millisecond
		} else {
			c.SessionTimeoutMinutes = int(n)
		}
	default:
		return fmt.Errorf("%s is not a startup parameter (the startup parameters are enableTestCommands, logicalSessionRefreshMillis and localLogicalSessionTimeoutMinutes; set runtime parameters with the setParameter command)", name)
	}
	return nil
}

// sessionTimeoutMinutes is localLogicalSessionTimeoutMinutes.
func (s *Server) sessionTimeoutMinutes() int32 {
	if s.cfg.SessionTimeoutMinutes > 0 {
		return int32(s.cfg.SessionTimeoutMinutes)
	}
	return LogicalSessionTimeoutMinutes
}

func (s *Server) sessionTimeout() time.Duration {
	return time.Duration(s.sessionTimeoutMinutes()) * time.Minute
}

// sessionRefresh is logicalSessionRefreshMillis.
func (s *Server) sessionRefresh() time.Duration {
	if s.cfg.SessionRefresh > 0 {
		return s.cfg.SessionRefresh
	}
	return DefaultSessionRefresh
}

// sessionOwnerOf returns who a command's sessions belong to: without
// authentication, nobody (mongod's kNoAuthDigest uid).
// anonymousUID is the uid of sessions without authentication:
// SHA-256 of the empty user name.
var anonymousUID = sha256.Sum256(nil)

func (s *Server) sessionOwnerOf(ctx context.Context, req *Request) sessionOwner {
	if u := s.currentUser(ctx, req); u != nil {
		return sessionOwner{uid: agg.SessionUID(*u), user: u.User + "@" + u.DB}
	}
	return sessionOwner{uid: anonymousUID}
}

// currentUser is the user authenticated on the request's connection when
// authentication is on, else nil.
func (s *Server) currentUser(ctx context.Context, req *Request) *agg.SessionUser {
	if !s.cfg.Auth || req == nil || req.conn == nil {
		return nil
	}
	g, err := req.conn.grants(ctx)
	if err != nil || g == nil || g.User == nil {
		return nil
	}
	return &agg.SessionUser{User: g.User.Name, DB: g.User.DB}
}

// recordDoc renders a session record as mongod's LogicalSessionRecord.
func recordDoc(rec sessionRecord) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendDocument("_id", fullLsid(rec.id, rec.owner.uid)).
		AppendDateTime("lastUse", rec.lastUse.UnixMilli())
	if rec.owner.user != "" {
		b.AppendDocument("user", bsoncore.NewDocumentBuilder().AppendString("name", rec.owner.user).Build())
	}
	return b.Build()
}

// fullLsid is a full logical session id, {id: UUID, uid: BinData(0)}.
func fullLsid(id string, uid [32]byte) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendBinary("id", 4, []byte(id)).
		AppendBinary("uid", 0, uid[:]).
		Build()
}

// localSessions lists the session cache for $listLocalSessions.
func (s *Server) localSessions(ctx context.Context, allUsers bool, uids [][32]byte) ([]bsoncore.Document, error) {
	if engine.TxnFrom(ctx) != nil {
		return nil, errs.New(errs.OperationNotSupportedInTransaction, "Stage not supported inside of a multi-document transaction: $listLocalSessions")
	}
	want := map[[32]byte]bool{}
	for _, u := range uids {
		want[u] = true
	}
	r := &s.sessions
	r.mu.Lock()
	recs := make([]sessionRecord, 0, len(r.active))
	for _, rec := range r.active {
		if allUsers || want[rec.owner.uid] {
			recs = append(recs, rec)
		}
	}
	r.mu.Unlock()
	sort.Slice(recs, func(i, j int) bool { return recs[i].lastUse.Before(recs[j].lastUse) })
	out := make([]bsoncore.Document, len(recs))
	for i, rec := range recs {
		out[i] = recordDoc(rec)
	}
	return out, nil
}

// runSessionRefresher refreshes config.system.sessions every
// logicalSessionRefreshMillis until the server closes.
func (s *Server) runSessionRefresher() {
	defer s.wg.Done()
	t := time.NewTicker(s.sessionRefresh())
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		if err := s.refreshSessionCache(context.Background()); err != nil {
			s.log.Warn("Failed to refresh session cache", "error", err)
		}
	}
}

// refreshSessionCache is mongod's LogicalSessionCache refresh: set up
// the collection and its TTL index, upsert the sessions used since the
// last refresh (and those running a command) with lastUse now, delete the
// ended ones and kill their cursors. On failure the cache keeps its
// entries for the next refresh.
func (s *Server) refreshSessionCache(ctx context.Context) error {
	r := &s.sessions
	r.refreshMu.Lock()
	defer r.refreshMu.Unlock()
	start := time.Now()
	r.mu.Lock()
	r.stats.jobs++
	r.stats.lastJob = start
	r.stats.refreshed, r.stats.ended, r.stats.cursorsKilled = 0, 0, 0
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.stats.lastJobMillis = time.Since(start).Milliseconds()
		r.mu.Unlock()
	}()
	if err := s.setupSessionsCollection(); err != nil {
		return err
	}
	r.mu.Lock()
	active, ending := r.active, r.ending
	r.active, r.ending = nil, nil
	busy := make([]*session, 0)
	for _, ss := range r.m {
		busy = append(busy, ss)
	}
	r.mu.Unlock()
	// Sessions with a command running are refreshed too.
	records := make(map[string]sessionRecord, len(active))
	for k, rec := range active {
		records[k] = rec
	}
	for _, ss := range busy {
		if _, ok := records[ss.id]; ok {
			continue
		}
		if ss.mu.TryLock() {
			ss.mu.Unlock()
			continue
		}
		records[ss.id] = sessionRecord{id: ss.id, owner: ss.owner}
	}
	for k := range ending {
		delete(records, k)
	}
	putBack := func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.active == nil {
			r.active = map[string]sessionRecord{}
		}
		for k, rec := range active {
			if _, ok := r.active[k]; !ok {
				r.active[k] = rec
			}
		}
		if r.ending == nil {
			r.ending = map[string]sessionRecord{}
		}
		for k, rec := range ending {
			r.ending[k] = rec
		}
	}
	if len(records) > 0 {
		specs := make([]engine.UpdateSpec, 0, len(records))
		for _, rec := range records {
			specs = append(specs, engine.UpdateSpec{
				Filter: bsoncore.NewDocumentBuilder().AppendDocument("_id", fullLsid(rec.id, rec.owner.uid)).Build(),
				Update: docValue(sessionUpdate(rec)),
				Upsert: true,
			})
		}
		res, err := s.eng.Update(ctx, sessionsDB, sessionsColl, specs, engine.WriteOptions{})
		if err == nil && len(res.WriteErrors) > 0 {
			err = res.WriteErrors[0].Err
		}
		if err != nil {
			putBack()
			return err
		}
		r.mu.Lock()
		r.stats.refreshed = int64(len(records))
		r.mu.Unlock()
	}
	if len(ending) > 0 {
		specs := make([]engine.DeleteSpec, 0, len(ending))
		keys := make(map[string]bool, len(ending))
		for k, rec := range ending {
			keys[k] = true
			specs = append(specs, engine.DeleteSpec{
				Filter: bsoncore.NewDocumentBuilder().AppendDocument("_id", fullLsid(rec.id, rec.owner.uid)).Build(),
				Limit:  1,
			})
		}
		res, err := s.eng.Delete(ctx, sessionsDB, sessionsColl, specs, engine.WriteOptions{})
		if err == nil && len(res.WriteErrors) > 0 {
			err = res.WriteErrors[0].Err
		}
		if err != nil {
			r.mu.Lock()
			if r.ending == nil {
				r.ending = map[string]sessionRecord{}
			}
			for k, rec := range ending {
				r.ending[k] = rec
			}
			r.mu.Unlock()
			return err
		}
		n := s.cursors.KillSessions(keys)
		r.mu.Lock()
		r.stats.ended, r.stats.cursorsKilled = int64(len(ending)), int64(n)
		r.mu.Unlock()
	}
	s.log.Debug("refreshed logical session cache", "refreshed", len(records), "ended", len(ending))
	return nil
}

// sessionUpdate is mongod's update of a record at refresh:
// {$currentDate: {lastUse: true}, $setOnInsert: {user: {name}}}.
func sessionUpdate(rec sessionRecord) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendDocument("$currentDate", bsoncore.NewDocumentBuilder().AppendBoolean("lastUse", true).Build())
	if rec.owner.user != "" {
		b.AppendDocument("$setOnInsert", bsoncore.NewDocumentBuilder().
			AppendDocument("user", bsoncore.NewDocumentBuilder().AppendString("name", rec.owner.user).Build()).Build())
	}
	return b.Build()
}

// setupSessionsCollection creates config.system.sessions and its TTL
// index when missing, and sets the index's expireAfterSeconds to
// localLogicalSessionTimeoutMinutes when it differs, as mongod's
// SessionsCollection setup does.
func (s *Server) setupSessionsCollection() error {
	secs := int64(s.sessionTimeoutMinutes()) * 60
	idx, err := s.eng.ListIndexes(sessionsDB, sessionsColl)
	if errs.Is(err, errs.NamespaceNotFound) {
		if err := s.eng.CreateCollection(sessionsDB, sessionsColl, engine.CreateOptions{}); err != nil && !errs.Is(err, errs.NamespaceExists) {
			return err
		}
		idx, err = nil, nil
	}
	if err != nil {
		return err
	}
	for _, ix := range idx {
		if ix.Name != sessionsTTLName {
			continue
		}
		if ix.ExpireAfterSeconds != nil && *ix.ExpireAfterSeconds == secs {
			return nil
		}
		_, err := s.eng.SetExpireAfterSeconds(sessionsDB, sessionsColl, sessionsTTLName, nil, secs)
		return err
	}
	_, err = s.eng.CreateIndex(sessionsDB, sessionsColl, engine.IndexSpec{
		Name:               sessionsTTLName,
		Key:                bsoncore.NewDocumentBuilder().AppendInt32("lastUse", 1).Build(),
		ExpireAfterSeconds: &secs,
	})
	return err
}

// sessionCacheDoc renders serverStatus.logicalSessionRecordCache, as
// mongod's LogicalSessionCacheStats.
func (s *Server) sessionCacheDoc() bsoncore.Document {
	r := &s.sessions
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stats
	return bsoncore.NewDocumentBuilder().
		AppendInt32("activeSessionsCount", int32(len(r.active))).
		AppendInt32("sessionsCollectionJobCount", int32(st.jobs)).
		AppendInt32("lastSessionsCollectionJobDurationMillis", int32(st.lastJobMillis)).
		AppendDateTime("lastSessionsCollectionJobTimestamp", unixMilliOrZero(st.lastJob)).
		AppendInt32("lastSessionsCollectionJobEntriesRefreshed", int32(st.refreshed)).
		AppendInt32("lastSessionsCollectionJobEntriesEnded", int32(st.ended)).
		AppendInt32("lastSessionsCollectionJobCursorsClosed", int32(st.cursorsKilled)).
		AppendInt32("transactionReaperJobCount", int32(st.reaps)).
		AppendInt32("lastTransactionReaperJobDurationMillis", int32(st.lastReapMillis)).
		AppendDateTime("lastTransactionReaperJobTimestamp", unixMilliOrZero(st.lastReap)).
		AppendInt32("lastTransactionReaperJobEntriesCleanedUp", int32(st.reaped)).
		AppendInt32("sessionCatalogSize", int32(len(r.m))).
		Build()
}

// unixMilliOrZero is t in Unix milliseconds, 0 for the zero time.
func unixMilliOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
