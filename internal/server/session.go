package server

import (
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// sessionRegistry holds the server's logical sessions. Its zero value is
// ready to use.
//
// m is mongod's session catalog: every live session with its retryable
// write and transaction state, expired after localLogicalSessionTimeout-
// Minutes idle. active is mongod's LogicalSessionCache: the sessions used
// since the last refresh of config.system.sessions, which
// $listLocalSessions lists and the refresh writes out and empties; ending
// holds the sessions endSessions ended since, which the refresh removes
// from the collection (sessions_coll.go).
type sessionRegistry struct {
	mu     sync.Mutex
	m      map[string]*session
	active map[string]sessionRecord
	ending map[string]sessionRecord
	reaper bool // the expiry goroutine runs
	// lastPrune is when the durable session records were last pruned.
	lastPrune time.Time
	// refreshMu serializes refreshes of config.system.sessions.
	refreshMu sync.Mutex
	stats     sessionCacheStats // under mu
}

// sessionCacheStats are serverStatus's logicalSessionRecordCache figures.
type sessionCacheStats struct {
	jobs, reaps                     int64
	lastJob, lastReap               time.Time
	lastJobMillis, lastReapMillis   int64
	refreshed, ended, cursorsKilled int64
	reaped                          int64
}

// sessionOwner is who a session belongs to: uid is mongod's
// SHA-256("user@db") of the authenticated user (of "" without
// authentication) and user its "user@db" ("" without authentication).
type sessionOwner struct {
	uid  [32]byte
	user string
}

// sessionRecord is an entry of the session cache, and of
// config.system.sessions: {_id: {id, uid}, lastUse, user: {name}}.
type sessionRecord struct {
	id      string
	owner   sessionOwner
	lastUse time.Time
}

// txnState is where a session's latest transaction stands.
type txnState int

const (
	txnNone txnState = iota
	txnActive
	txnCommitted
	txnAborted
)

// session is one logical session (lsid). mu serializes the commands that
// carry it, which MongoDB also runs one at a time per session.
type session struct {
	id      string
	owner   sessionOwner // set when created
	mu      sync.Mutex
	lastUse time.Time // under registry mu
	killed  bool      // under mu

	// txnNumber is the highest transaction number seen (retryable writes
	// and transactions share it).
	txnNumber int64
	// loaded: the durable record (session_retry.go) was read; rec is the
	// session's record as committed (nil: none).
	loaded   bool
	rec      *retryRecord
	recorder retryRecorder // reused by the session's retryable writes
	// Retryable write: the reply of the write with txnNumber retryNumber.
	retryNumber int64
	retryCmd    string
	retryReply  bsoncore.Document

	// Transaction state for txnNumber.
	state      txnState
	tx         *engine.Txn
	txUsed     time.Time
	txStmts    int
	txAbortErr *errs.Error // why the transaction aborted, for later statements
	// committedTx is the committed transaction txnNumber named, kept so a
	// retried commitTransaction can wait for its durability again.
	committedTx *engine.Txn
	// txReadConcern is the readConcern level the transaction started with.
	txReadConcern string
}

// sessionKey extracts lsid.id (a UUID) as a map key.
func sessionKey(lsid bsoncore.Document) (string, error) {
	v, err := lsid.LookupErr("id")
	if err != nil {
		return "", errs.New(errs.Location40414, "BSON field 'OperationSessionInfo.lsid.id' is missing but a required field")
	}
	sub, data, ok := v.BinaryOK()
	if !ok || sub != 4 {
		return "", errs.New(errs.TypeMismatch, "BSON field 'OperationSessionInfo.lsid.id' is the wrong type '%s', expected type 'binData' subtype 4", bsonutil.TypeName(v.Type))
	}
	return string(data), nil
}

// sessionID is sessionKey without the string: the lsid.id bytes, which
// alias lsid.
func sessionID(lsid bsoncore.Document) ([]byte, error) {
	v, err := lsid.LookupErr("id")
	if err != nil {
		return nil, errs.New(errs.Location40414, "BSON field 'OperationSessionInfo.lsid.id' is missing but a required field")
	}
	sub, data, ok := v.BinaryOK()
	if !ok || sub != 4 {
		return nil, errs.New(errs.TypeMismatch, "BSON field 'OperationSessionInfo.lsid.id' is the wrong type '%s', expected type 'binData' subtype 4", bsonutil.TypeName(v.Type))
	}
	return data, nil
}

// get returns the session for key, creating it for owner (and adding it
// to the session cache) when create is set.
func (r *sessionRegistry) get(s *Server, key string, owner sessionOwner, create bool) *session {
	return r.getID(s, key, nil, owner, create, time.Now())
}

// getID is get for the session whose key is key, or, when id is not
// nil, string(id): then the key is made only for a new session. now is
// the time of the use.
func (r *sessionRegistry) getID(s *Server, key string, id []byte, owner sessionOwner, create bool, now time.Time) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*session{}
	}
	var ss *session
	if id != nil {
		ss = r.m[string(id)]
		if ss == nil {
			key = string(id)
		} else {
			key = ss.id
		}
	} else {
		ss = r.m[key]
	}
	if ss == nil {
		if !create {
			return nil
		}
		ss = &session{id: key, owner: owner}
		r.m[key] = ss
		if !r.reaper {
			r.reaper = true
			go s.reapSessions()
		}
	}
	ss.lastUse = now
	// As mongod's LogicalSessionCache::vivify: a session joins the cache
	// when first used after a refresh, with that time as its lastUse.
	if _, ok := r.active[key]; !ok {
		if r.active == nil {
			r.active = map[string]sessionRecord{}
		}
		r.active[key] = sessionRecord{id: key, owner: ss.owner, lastUse: now}
	}
	return ss
}

// removeSession drops a session, aborts its open transaction and kills
// its cursors. endedBy, for endSessions, is the uid of the session ended:
// its record {_id: {id, uid}} is then deleted from config.system.sessions
// at the next refresh, as mongod's endSessions does, even when this
// server no longer holds the session.
func (s *Server) removeSession(key string, endedBy *[32]byte) {
	r := &s.sessions
	r.mu.Lock()
	ss := r.m[key]
	delete(r.m, key)
	delete(r.active, key)
	if endedBy != nil {
		if r.ending == nil {
			r.ending = map[string]sessionRecord{}
		}
		r.ending[key] = sessionRecord{id: key, owner: sessionOwner{uid: *endedBy}}
	}
	r.mu.Unlock()
	if ss != nil {
		ss.mu.Lock()
		ss.killed = true
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction was aborted because its session was ended"))
		// Its retryable-write history goes with it (session_retry.go).
		if !ss.loaded || ss.rec != nil {
			s.dropRecord(key)
		}
		ss.rec, ss.loaded = nil, true
		ss.mu.Unlock()
	} else if endedBy != nil {
		s.dropRecord(key) // a session of an earlier run
	}
	s.cursors.KillSessions(map[string]bool{key: true})
}

// lookup returns the session for key without marking it used.
func (r *sessionRegistry) lookup(key string) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[key]
}

// all returns every session key.
func (r *sessionRegistry) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.m))
	for k := range r.m {
		out = append(out, k)
	}
	return out
}

// abortTxn aborts the session's active transaction, if any. Called with
// mu held.
func (ss *session) abortTxn(why *errs.Error) {
	if ss.state != txnActive {
		return
	}
	if ss.tx != nil {
		ss.tx.Abort()
	}
	ss.tx = nil
	ss.state = txnAborted
	ss.txAbortErr = why
}

// reapSessions expires sessions idle longer than
// logicalSessionTimeoutMinutes and aborts transactions idle longer than
// transactionLifetimeLimitSeconds. It stops when the server closes.
func (s *Server) reapSessions() {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
		case <-tick.C:
		}
		s.mu.Lock()
		closing := s.closing
		s.mu.Unlock()
		if closing {
			s.sessions.mu.Lock()
			s.sessions.reaper = false
			s.sessions.mu.Unlock()
			return
		}
		s.reapOnce(time.Now())
	}
}

// reapOnce does one expiry pass as of now; the durable records of
// sessions gone are pruned at most once a minute.
func (s *Server) reapOnce(now time.Time) { s.reap(now, false) }

// reap does one expiry pass as of now, pruning the durable session
// records when prune is set or a minute has passed since the last time.
func (s *Server) reap(now time.Time, prune bool) {
	start := time.Now()
	limit := time.Duration(s.txnLifetimeSeconds()) * time.Second
	sessTimeout := s.sessionTimeout()
	r := &s.sessions
	r.mu.Lock()
	var expired []string
	var live []*session
	for k, ss := range r.m {
		if now.Sub(ss.lastUse) > sessTimeout {
			expired = append(expired, k)
		} else {
			live = append(live, ss)
		}
	}
	r.mu.Unlock()
	for _, k := range expired {
		s.log.Debug("logical session expired", "lsid", uuidString(k))
		s.removeSession(k, nil)
	}
	r.mu.Lock()
	if now.Sub(r.lastPrune) >= time.Minute {
		prune = true
	}
	if prune {
		r.lastPrune = now
	}
	r.mu.Unlock()
	if prune {
		s.pruneSessionRecords(now, sessTimeout)
	}
	r.mu.Lock()
	r.stats.reaps++
	r.stats.lastReap, r.stats.reaped = start, int64(len(expired))
	r.stats.lastReapMillis = time.Since(start).Milliseconds()
	r.mu.Unlock()
	for _, ss := range live {
		if !ss.mu.TryLock() { // a command is running on it: not idle
			continue
		}
		if ss.state == txnActive && now.Sub(ss.txUsed) > limit {
			s.log.Info("aborting idle transaction", "txnNumber", ss.txnNumber)
			ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction %d has been aborted because it exceeded transactionLifetimeLimitSeconds", ss.txnNumber))
		}
		ss.mu.Unlock()
	}
}

// txnLifetimeSeconds reads the transactionLifetimeLimitSeconds parameter.
func (s *Server) txnLifetimeSeconds() int64 {
	if p, ok := s.paramTable().lookup("transactionLifetimeLimitSeconds"); ok {
		if n, ok := asInt64(p.get()); ok && n > 0 {
			return n
		}
	}
	return 60
}
