package server

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// sessionArgs are the session fields of a command (OperationSessionInfo).
type sessionArgs struct {
	lsid          bsoncore.Document
	txnNumber     int64
	hasTxnNumber  bool
	autocommit    bool
	hasAutocommit bool
	startTxn      bool
	readConcern   bsoncore.Document
	hasWC         bool
}

func parseSessionArgs(req *Request) (sessionArgs, error) {
	var a sessionArgs
	if req.gen.ok {
		err := req.gen.each(req.Cmd, true, func(g genArg, v bsoncore.Value) error {
			return a.set(req, genArgNames[g], v)
		}, argLsid, argTxnNumber, argAutocommit, argStartTransaction, argReadConcern, argWriteConcern)
		return a, commandDocErr(err)
	}
	first := true
	err := bsonutil.EachElement(req.Cmd, func(el bsoncore.Element) error {
		if first { // the command name
			first = false
			return nil
		}
		return a.set(req, el.Key(), el.Value())
	})
	return a, commandDocErr(err)
}

// set reads field k of req's command when it is a session field.
func (a *sessionArgs) set(req *Request, k string, v bsoncore.Value) error {
	switch k {
	case "lsid":
		d, err := argDoc(req.Name, "lsid", v)
		if err != nil {
			return err
		}
		a.lsid = d
	case "txnNumber":
		if v.Type != bsoncore.TypeInt64 && v.Type != bsoncore.TypeInt32 {
			return wrongType(req.Name, "txnNumber", v, "long")
		}
		n, _ := asInt64(v)
		a.txnNumber, a.hasTxnNumber = n, true
	case "autocommit":
		b, err := argBool(req.Name, "autocommit", v)
		if err != nil {
			return err
		}
		a.autocommit, a.hasAutocommit = b, true
	case "startTransaction":
		b, err := argBool(req.Name, "startTransaction", v)
		if err != nil {
			return err
		}
		a.startTxn = b
	case "readConcern":
		d, err := argDoc(req.Name, "readConcern", v)
		if err != nil {
			return err
		}
		a.readConcern = d
	case "writeConcern":
		a.hasWC = true
	}
	return nil
}

// runCommand runs h for req with the command's session semantics:
// retryable writes and transactions. An error carries the cluster time
// fields of a replica set; a success's body does not: okReply writes
// them, with ok, into the reply in one piece.
func (s *Server) runCommand(ctx context.Context, h handler, req *Request) (bsoncore.Document, error) {
	body, err := s.runSession(ctx, h, req)
	if err == nil || !s.replSet() {
		return body, err
	}
	e := *errs.As(err)
	if len(e.Info) == 0 {
		e.Info = s.clusterTimeFields()
	} else {
		e.Info = appendFields(e.Info, s.clusterTimeFields())
	}
	return nil, &e
}

func (s *Server) runSession(ctx context.Context, h handler, req *Request) (bsoncore.Document, error) {
	a, err := parseSessionArgs(req)
	if err != nil {
		return nil, err
	}
	// A write concern given, or a default one set: without either the
	// command has the implicit {w: 1}, nothing to check or wait for.
	if a.hasWC || s.rw.wcSet.Load() {
		takes := takesWriteConcern(req)
		if a.hasWC && !takes {
			// mongod refuses a write concern a command cannot honour
			// (a read, an aggregate without $out or $merge, ping)
			// before it runs, whatever its value.
			return nil, errs.New(errs.InvalidOptions, "Command does not support writeConcern")
		}
		if takes && !a.hasAutocommit && !req.command().ownWriteConcern {
			// Read before it runs (a malformed one refuses the
			// command), waited for after it ran (writeconcern.go).
			wc, err := parseWriteConcern(req)
			if err != nil {
				return nil, err
			}
			body, err := s.runSessionRead(ctx, h, req, a)
			return s.afterCommand(ctx, wc, body, err)
		}
	}
	return s.runSessionRead(ctx, h, req, a)
}

// runSessionRead runs h at the command's read concern.
func (s *Server) runSessionRead(ctx context.Context, h handler, req *Request, a sessionArgs) (bsoncore.Document, error) {
	if readConcernLevel(a.readConcern) == "snapshot" && !a.hasAutocommit {
		return s.runSnapshotRead(ctx, h, req, a) // readconcern.go
	}
	if err := s.waitReadConcern(ctx, a.readConcern); err != nil { // readconcern.go
		return nil, err
	}
	return s.runSessionCmd(ctx, h, req, a)
}

// runSessionCmd runs h under the command's session: plain, retryable or
// in a transaction.
func (s *Server) runSessionCmd(ctx context.Context, h handler, req *Request, a sessionArgs) (bsoncore.Document, error) {
	if a.lsid == nil {
		if a.hasTxnNumber {
			return nil, errs.New(errs.InvalidOptions, "Transaction number requires a session ID to also be specified")
		}
		if a.hasAutocommit {
			return nil, errs.New(errs.InvalidOptions, "'autocommit' field requires a transaction number to also be specified")
		}
		return h(ctx, s, req)
	}
	id, err := sessionID(a.lsid)
	if err != nil {
		return nil, err
	}
	if req.command().ofSessions {
		return h(ctx, s, req)
	}
	if (a.hasTxnNumber || a.hasAutocommit) && !s.replSet() {
		return nil, errs.New(errs.IllegalOperation, "Transaction numbers are only allowed on a replica set member or mongos")
	}
	now := time.Time{}
	if op := opFrom(ctx); op != nil {
		now = op.start // the command's start: no second clock read
	} else {
		now = time.Now()
	}
	ss := s.sessions.getID(s, "", id, s.sessionOwnerOf(ctx, req), true, now)
	ctx = withCmdSession(ctx, ss.id, a)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if a.hasTxnNumber {
		// First sight of the session since the server started: its
		// durable history (session_retry.go).
		if err := s.loadRecord(ss); err != nil {
			return nil, err
		}
	}
	switch {
	case a.hasAutocommit:
		return s.runInTxn(ctx, h, req, ss, a)
	case a.hasTxnNumber && req.command().retryable == yes:
		return s.runRetryable(ctx, h, req, ss, a)
	case a.hasTxnNumber:
		if req.Name == "commitTransaction" || req.Name == "abortTransaction" {
			return nil, errs.New(errs.InvalidOptions, "%s must be run within a transaction", req.Name)
		}
		return h(ctx, s, req)
	default:
		return h(ctx, s, req)
	}
}

// runRetryable runs a retryable write: a retry of the latest txnNumber
// returns the first attempt's reply without applying the write again.
func (s *Server) runRetryable(ctx context.Context, h handler, req *Request, ss *session, a sessionArgs) (bsoncore.Document, error) {
	if a.txnNumber < ss.txnNumber {
		return nil, errs.New(errs.TransactionTooOld, "Retryable write with txnNumber %d is prohibited on session because a newer retryable write with txnNumber %d has already started on this session.", a.txnNumber, ss.txnNumber)
	}
	if a.txnNumber == ss.txnNumber && ss.retryReply != nil && ss.retryNumber == a.txnNumber {
		if ss.retryCmd != req.Name {
			return nil, errs.New(errs.Location50911, "Request with transaction number %d has already been used for a %s command", a.txnNumber, ss.retryCmd)
		}
		s.log.Debug("retryable write answered from its first attempt", "cmd", req.Name, "txnNumber", a.txnNumber)
		if err := s.retryDurable(ctx, req); err != nil {
			return nil, err
		}
		return ss.retryReply, nil
	}
	if a.txnNumber == ss.txnNumber && ss.state != txnNone {
		return nil, errs.New(errs.IncompleteTransactionHistory, "Cannot retry a retryable write that has been converted into a transaction")
	}
	if a.txnNumber > ss.txnNumber {
		if ss.state == txnActive { // the error only for a transaction to abort
			ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction was aborted by a newer txnNumber"))
		}
		ss.state, ss.committedTx = txnNone, nil
	}
	ss.txnNumber = a.txnNumber
	// The onPrimaryTransactionalWrite failpoint (failpoint.go) may close
	// the connection once the reply is recorded, or fail the write.
	return s.onPrimaryWrite(req, a, func() (bsoncore.Document, error) {
		body, err := s.runRetryableWrite(ctx, h, req, ss, a) // session_retry.go
		if err != nil {
			return nil, err
		}
		ss.retryNumber, ss.retryCmd = a.txnNumber, req.Name
		ss.retryReply = append(bsoncore.Document(nil), body...)
		return body, nil
	})
}

// runInTxn runs a statement of a multi-document transaction, or its
// commitTransaction/abortTransaction.
func (s *Server) runInTxn(ctx context.Context, h handler, req *Request, ss *session, a sessionArgs) (bsoncore.Document, error) {
	if !a.hasTxnNumber {
		return nil, errs.New(errs.InvalidOptions, "'autocommit' field requires a transaction number to also be specified")
	}
	if a.autocommit {
		return nil, errs.New(errs.InvalidOptions, "Specifying autocommit=true is not allowed.")
	}
	if a.txnNumber < ss.txnNumber {
		return nil, errs.New(errs.TransactionTooOld, "Cannot start transaction %d on session because a newer transaction %d has already started", a.txnNumber, ss.txnNumber)
	}
	if a.startTxn {
		if a.txnNumber == ss.txnNumber && ss.state != txnNone {
			return nil, errs.New(errs.ConflictingOperationInProgress, "Cannot start a transaction with txnNumber %d: it has already been used on this session", a.txnNumber)
		}
		if req.Name == "commitTransaction" || req.Name == "abortTransaction" {
			return nil, errs.New(errs.InvalidOptions, "%s cannot start a transaction", req.Name)
		}
		if err := checkTxnReadConcern(a.readConcern); err != nil {
			return nil, err
		}
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction was aborted by a newer txnNumber"))
		tx, err := s.eng.BeginTxn()
		if err != nil {
			return nil, err
		}
		tx.SetSession(a.lsid, a.txnNumber)
		tx.SetCommitRecord(txnCommitRecord(ss, a.txnNumber)) // session_retry.go
		ss.txnNumber, ss.tx, ss.state, ss.txAbortErr, ss.txStmts = a.txnNumber, tx, txnActive, nil, 0
		ss.committedTx, ss.txReadConcern = nil, readConcernLevel(a.readConcern)
		ss.retryReply = nil
	} else if a.txnNumber > ss.txnNumber || ss.state == txnNone {
		return nil, noSuchTxn(a.txnNumber, "transaction not started")
	}
	ss.txUsed = time.Now()
	if req.Name == "commitTransaction" || req.Name == "abortTransaction" {
		if err := checkTxnEndFields(req); err != nil {
			return nil, err
		}
	}
	switch req.Name {
	case "commitTransaction":
		return s.commitTxn(ctx, req, ss)
	case "abortTransaction":
		switch ss.state {
		case txnCommitted:
			return nil, errs.New(errs.TransactionCommitted, "Transaction %d has been committed.", ss.txnNumber)
		case txnAborted:
			return nil, noSuchTxn(ss.txnNumber, "transaction aborted")
		}
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction %d has been aborted.", ss.txnNumber))
		return nil, nil
	}
	switch ss.state {
	case txnCommitted:
		return nil, errs.New(errs.TransactionCommitted, "Transaction %d has been committed.", ss.txnNumber)
	case txnAborted:
		return nil, noSuchTxn(ss.txnNumber, "transaction aborted")
	}
	if req.command().inTxn != yes {
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "aborted"))
		return nil, errs.New(errs.OperationNotSupportedInTransaction, "Cannot run '%s' in a multi-document transaction.", req.Name)
	}
	if ss.txStmts > 0 && a.readConcern != nil {
		return nil, errs.New(errs.InvalidOptions, "Only the first command in a transaction may specify a readConcern")
	}
	if a.hasWC {
		return nil, errs.New(errs.InvalidOptions, "Cannot set write concern after starting a transaction.")
	}
	if req.command().creates && ss.txReadConcern != "" && ss.txReadConcern != "local" {
		// mongod runs DDL in a transaction only at readConcern local.
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "aborted"))
		return nil, errs.New(errs.InvalidOptions, "Cannot run '%s' in a multi-document transaction with readConcern level '%s': only readConcern level 'local' is allowed for collection and index creation", req.Name, ss.txReadConcern)
	}
	ss.txStmts++
	tx := ss.tx
	body, err := h(engine.WithTxn(ctx, tx), s, req)
	if terr := tx.Err(); terr != nil {
		// A write conflict dooms the transaction: abort and report it
		// as the command's error, labelled for the driver to retry.
		ss.abortTxn(errs.As(terr))
		return nil, terr
	}
	if err != nil || hasWriteErrors(body) {
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction %d has been aborted after an error.", ss.txnNumber))
	}
	return body, err
}

// commitTxn commits the session's transaction. A repeated commit of a
// committed transaction succeeds again, as MongoDB's does, after waiting
// again for the durability its write concern asks for.
//
// The transaction counts as committed as soon as its writes reach the
// database: an error after that point (the journal wait failed or ran out
// of maxTimeMS) carries UnknownTransactionCommitResult and never
// TransientTransactionError, so the driver retries the commit rather than
// the whole transaction.
func (s *Server) commitTxn(ctx context.Context, req *Request, ss *session) (bsoncore.Document, error) {
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	switch ss.state {
	case txnCommitted:
		if ss.committedTx != nil {
			if err := ss.committedTx.WaitDurable(ctx, wc.journal); err != nil {
				return nil, unknownCommitResult(err)
			}
		}
		b := bsoncore.NewDocumentBuilder()
		appendWriteConcernError(b, wc)
		return b.Build(), nil
	case txnAborted:
		return nil, noSuchTxn(ss.txnNumber, "transaction aborted")
	}
	tx := ss.tx
	err = tx.Commit(ctx, wc.journal)
	if tx.Committed() {
		ss.tx, ss.committedTx, ss.state = nil, tx, txnCommitted
		ss.rec = &retryRecord{txnNum: ss.txnNumber, committed: true}
	} else {
		ss.tx, ss.state = nil, txnAborted
	}
	if err != nil {
		e := errs.As(err)
		if !tx.Committed() && e.Code == errs.WriteConflict {
			return nil, e
		}
		return nil, unknownCommitResult(err)
	}
	b := bsoncore.NewDocumentBuilder()
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// unknownCommitResult labels a commitTransaction error whose outcome the
// client cannot know: UnknownTransactionCommitResult, never
// TransientTransactionError (retrying the whole transaction could apply
// it twice).
func unknownCommitResult(err error) error {
	e := *errs.As(err)
	labels := make([]string, 0, len(e.Labels)+1)
	for _, l := range e.Labels {
		if l != "TransientTransactionError" && l != "UnknownTransactionCommitResult" {
			labels = append(labels, l)
		}
	}
	e.Labels = append(labels, "UnknownTransactionCommitResult")
	return &e
}

func noSuchTxn(n int64, why string) error {
	e := errs.New(errs.NoSuchTransaction, "Transaction with { txnNumber: %d } has been aborted. (%s)", n, why)
	e.Labels = []string{"TransientTransactionError"}
	return e
}

// checkTxnReadConcern accepts the read concerns MongoDB allows for a
// transaction.
func checkTxnReadConcern(rc bsoncore.Document) error {
	if rc == nil {
		return nil
	}
	v, err := rc.LookupErr("level")
	if err != nil {
		return nil
	}
	switch lvl, _ := v.StringValueOK(); lvl {
	case "snapshot", "majority", "local":
		return nil
	default:
		return errs.New(errs.InvalidOptions, "The readConcern level must be either 'local' (default), 'majority' or 'snapshot' in order to run in a transaction")
	}
}

// readConcernLevel returns the level of a readConcern argument, or "".
func readConcernLevel(rc bsoncore.Document) string {
	if rc == nil {
		return ""
	}
	lvl, _ := rc.Lookup("level").StringValueOK()
	return lvl
}

// hasWriteErrors reports whether a write reply carries writeErrors.
func hasWriteErrors(body bsoncore.Document) bool {
	if len(body) == 0 {
		return false
	}
	_, err := body.LookupErr("writeErrors")
	return err == nil
}

// checkTxnEndFields applies the IDL of commitTransaction and
// abortTransaction (strict): recoveryToken is mongos's and has no effect
// on a replica set member; commitTimestamp belongs to prepared
// transactions, which Lode does not have.
func checkTxnEndFields(req *Request) error {
	return eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "recoveryToken":
			if v.Type != bsoncore.TypeEmbeddedDocument {
				return true, wrongType(req.Name, k, v, "object")
			}
			return true, nil
		case "commitTimestamp":
			if req.Name == "commitTransaction" {
				return true, errs.New(errs.NotImplemented, "commitTransaction.commitTimestamp is not supported by Lode: it has no prepared transactions")
			}
		}
		return false, nil
	})
}
