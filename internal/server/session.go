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
type sessionRegistry struct {
	mu     sync.Mutex
	m      map[string]*session
	reaper bool // the expiry goroutine runs
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
	mu      sync.Mutex
	lastUse time.Time // under registry mu
	killed  bool      // under mu

	// txnNumber is the highest transaction number seen (retryable writes
	// and transactions share it).
	txnNumber int64
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

// get returns the session for key, creating it when create is set.
func (r *sessionRegistry) get(s *Server, key string, create bool) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*session{}
	}
	ss := r.m[key]
	if ss == nil {
		if !create {
			return nil
		}
		ss = &session{id: key}
		r.m[key] = ss
		if !r.reaper {
			r.reaper = true
			go s.reapSessions()
		}
	}
	ss.lastUse = time.Now()
	return ss
}

// remove drops a session and aborts its open transaction.
func (r *sessionRegistry) remove(key string) {
	r.mu.Lock()
	ss := r.m[key]
	delete(r.m, key)
	r.mu.Unlock()
	if ss != nil {
		ss.mu.Lock()
		ss.killed = true
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction was aborted because its session was ended"))
		ss.mu.Unlock()
	}
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

// reapOnce does one expiry pass as of now.
func (s *Server) reapOnce(now time.Time) {
	limit := time.Duration(s.txnLifetimeSeconds()) * time.Second
	sessTimeout := time.Duration(LogicalSessionTimeoutMinutes) * time.Minute
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
		r.remove(k)
	}
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
