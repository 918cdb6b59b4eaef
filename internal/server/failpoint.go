package server

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// Failpoints are mongod's test hooks, set with configureFailPoint
// (cmd_configurefailpoint.go) when test commands are enabled
// (Config.TestCommands, lode serve --enable-test-commands). The main one
// is failCommand, which makes chosen commands fail, close the connection,
// block, or report a writeConcernError, as drivers' tests use it.

// fpMode is a failpoint's activation mode.
type fpMode int

const (
	fpOff      fpMode = iota
	fpAlwaysOn        // "alwaysOn"
	fpTimes           // {times: n}: the next n entries, then off
	fpSkip            // {skip: n}: not the next n entries, then every one
	fpRandom          // {activationProbability: p}
)

func (m fpMode) String() string {
	return [...]string{"off", "alwaysOn", "times", "skip", "activationProbability"}[m]
}

// failPoint is one failpoint's state. Its data document is replaced, never
// changed, so a fired entry may keep it.
type failPoint struct {
	active atomic.Bool // fast path: false while off

	mu      sync.Mutex
	mode    fpMode
	n       int64   // entries left (times) or to skip (skip)
	prob    float64 // fpRandom's probability
	data    bsoncore.Document
	entered int64 // times the failpoint fired, ever (mongod's timesEntered)
}

// fpSetting is a parsed configureFailPoint request.
type fpSetting struct {
	mode fpMode
	n    int64
	prob float64
	data bsoncore.Document
}

// set installs s and returns how many times the failpoint fired before.
func (fp *failPoint) set(s fpSetting) int64 {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	fp.mode, fp.n, fp.prob, fp.data = s.mode, s.n, s.prob, s.data
	if s.mode == fpTimes && s.n <= 0 {
		fp.mode = fpOff
	}
	fp.active.Store(fp.mode != fpOff)
	return fp.entered
}

// enter evaluates the failpoint for one use: when it is on and match
// accepts its data, the mode decides whether it fires; a firing counts as
// an entry and returns the data. match sees the data only while on, and
// an entry it rejects uses up no times or skips, as in mongod.
func (fp *failPoint) enter(match func(data bsoncore.Document) bool) (bsoncore.Document, bool) {
	if !fp.active.Load() {
		return nil, false
	}
	fp.mu.Lock()
	defer fp.mu.Unlock()
	if fp.mode == fpOff || !match(fp.data) {
		return nil, false
	}
	switch fp.mode {
	case fpTimes:
		fp.n--
		if fp.n <= 0 {
			fp.mode = fpOff
			fp.active.Store(false)
		}
	case fpSkip:
		if fp.n > 0 {
			fp.n--
			return nil, false
		}
	case fpRandom:
		if rand.Float64() >= fp.prob {
			return nil, false
		}
	}
	fp.entered++
	return fp.data, true
}

// parseFailPointSetting reads mode and data as mongod's FailPoint::parseBSON
// does, with its messages.
func parseFailPointSetting(cmd bsoncore.Document) (fpSetting, error) {
	var s fpSetting
	mv, err := cmd.LookupErr("mode")
	if err != nil {
		return s, errs.New(errs.IllegalOperation, "When setting a failpoint, you must supply a 'mode'")
	}
	switch mv.Type {
	case bsoncore.TypeString:
		switch m := mv.StringValue(); m {
		case "off":
			s.mode = fpOff
		case "alwaysOn":
			s.mode = fpAlwaysOn
		default:
			return s, errs.New(errs.BadValue, "unknown mode: %s", m)
		}
	case bsoncore.TypeEmbeddedDocument:
		md := mv.Document()
		if v, err := md.LookupErr("times"); err == nil {
			s.mode = fpTimes
			if s.n, err = fpCount("times", v); err != nil {
				return s, err
			}
		} else if v, err := md.LookupErr("skip"); err == nil {
			s.mode = fpSkip
			if s.n, err = fpCount("skip", v); err != nil {
				return s, err
			}
		} else if v, err := md.LookupErr("activationProbability"); err == nil {
			s.mode = fpRandom
			if !bsonutil.IsNumber(v.Type) {
				return s, errs.New(errs.TypeMismatch, "the 'activationProbability' option to 'mode' must be a double between 0 and 1")
			}
			s.prob = bsonutil.AsFloat64(v)
			if !(s.prob >= 0 && s.prob <= 1) {
				return s, errs.New(errs.BadValue, "activationProbability must be between 0.0 and 1.0; found %v", s.prob)
			}
		} else {
			return s, errs.New(errs.BadValue, "'mode' must be one of 'off', 'alwaysOn', '{times:n}', '{skip:n}' or '{activationProbability:p}'")
		}
	default:
		return s, errs.New(errs.TypeMismatch, "'mode' must be a string or JSON object")
	}
	if dv, err := cmd.LookupErr("data"); err == nil {
		d, ok := dv.DocumentOK()
		if !ok {
			return s, errs.New(errs.TypeMismatch, "the 'data' option must be a JSON object")
		}
		s.data = append(bsoncore.Document(nil), d...)
	}
	return s, nil
}

// fpCount reads a times or skip count.
func fpCount(name string, v bsoncore.Value) (int64, error) {
	n, ok := asInt64(v)
	if !ok || !bsonutil.IsNumber(v.Type) {
		return 0, errs.New(errs.TypeMismatch, "\"%s\" had the wrong type. Expected number, found %s", name, bsonutil.TypeName(v.Type))
	}
	if n < 0 {
		return 0, errs.New(errs.BadValue, "'%s' option to 'mode' must be positive", name)
	}
	if n > 1<<31-1 {
		return 0, errs.New(errs.BadValue, "'%s' option to 'mode' is too large", name)
	}
	return n, nil
}

// failCommandMatches is mongod's shouldActivateFailCommandFailPoint: the
// command is named in failCommands (by any of its names), and threadName,
// appName and namespace, when given, are the connection's and the
// command's. configureFailPoint itself is never failed. Every Lode client
// is external, so failInternalCommands changes nothing.
func failCommandMatches(data bsoncore.Document, req *Request) bool {
	if req.Name == "configureFailPoint" || !failPointClientMatches(data, req, ns(req.DB, cmdColl(req))) {
		return false
	}
	arr, ok := data.Lookup("failCommands").ArrayOK()
	if !ok {
		return false
	}
	vals, _ := arr.Values()
	for _, v := range vals {
		if name, ok := v.StringValueOK(); ok && sameCommand(name, req.Name) {
			return true
		}
	}
	return false
}

// failPointClientMatches checks a failpoint's threadName, appName and
// namespace, when given, against the connection and the namespace the
// command works on.
func failPointClientMatches(data bsoncore.Document, req *Request, namespace string) bool {
	if v, err := data.LookupErr("threadName"); err == nil {
		if req.conn == nil || v.Type != bsoncore.TypeString || v.StringValue() != "conn"+itoa(req.conn.id) {
			return false
		}
	}
	if v, err := data.LookupErr("appName"); err == nil {
		if req.conn == nil || v.Type != bsoncore.TypeString || v.StringValue() != reqAppName(req) {
			return false
		}
	}
	if v, err := data.LookupErr("namespace"); err == nil {
		if v.Type != bsoncore.TypeString || v.StringValue() != namespace {
			return false
		}
	}
	return true
}

// reqAppName is the application name the client sent in its first
// hello; for that hello itself, the one it sends, so that drivers' tests
// can fail a handshake by appName.
func reqAppName(req *Request) string {
	md := req.conn.client
	if md == nil && (req.Name == "hello" || req.Name == "isMaster" || req.Name == "ismaster") {
		md, _ = req.Cmd.Lookup("client").DocumentOK()
	}
	if md == nil {
		return ""
	}
	s, _ := md.Lookup("application", "name").StringValueOK()
	return s
}

// fpBool reads a boolean option of the failpoint's data; another type is
// false, as mongod's bsonExtractBooleanField failure is.
func fpBool(data bsoncore.Document, key string) bool {
	b, ok := data.Lookup(key).BooleanOK()
	return ok && b
}

// failCommandBefore applies failCommand to a command about to run, as
// mongod's evaluateFailCommandFailPoint: blockConnection sleeps first,
// closeConnection then ends the connection without a reply, errorCode
// fails the command with errorLabels, or the labels mongod would give.
// It returns the error to reply with, or nil to run the command.
func (s *Server) failCommandBefore(ctx context.Context, req *Request) error {
	var code int64
	var hasCode, block, closeConn bool
	data, fired := s.failCommand.enter(func(d bsoncore.Document) bool {
		closeConn, block = fpBool(d, "closeConnection"), fpBool(d, "blockConnection")
		if v, err := d.LookupErr("errorCode"); err == nil {
			code, hasCode = asInt64(v)
			hasCode = hasCode && bsonutil.IsNumber(v.Type)
		}
		return (closeConn || block || hasCode) && failCommandMatches(d, req)
	})
	if !fired {
		return nil
	}
	if block {
		v, err := data.LookupErr("blockTimeMS")
		ms, ok := asInt64(v)
		if err != nil || !ok || !bsonutil.IsNumber(v.Type) {
			return errs.New(errs.InvalidOptions, "must specify 'blockTimeMS' when 'blockConnection' is true")
		}
		if ms < 0 {
			return errs.New(errs.InvalidOptions, "'blockTimeMS' must be non-negative")
		}
		s.log.Info("Blocking command via 'failCommand' failpoint", "cmd", req.Name, "blockTimeMS", ms)
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		s.log.Info("Unblocking command via 'failCommand' failpoint", "cmd", req.Name)
	}
	if closeConn {
		s.log.Info("Failing command via 'failCommand' failpoint: closing connection", "cmd", req.Name)
		if req.conn != nil {
			req.conn.closeNow = true
		}
		return errs.New(errs.FailCommandClosedConnection, "Failing command due to 'failCommand' failpoint")
	}
	if !hasCode {
		return nil
	}
	s.log.Info("Failing command via 'failCommand' failpoint", "cmd", req.Name, "errorCode", code)
	e := errs.New(errs.Code(code), "Failing command via 'failCommand' failpoint")
	e.Labels = failCommandLabels(data, req, errs.Code(code), 0)
	if s.replSet() {
		e.Info = s.clusterTimeFields()
	}
	return e
}

// failCommandAfter returns the fields the failpoint adds to the reply of
// a command that succeeded and takes a write concern (its
// writeConcernError and labels, as mongod does after running it), or nil.
// okReply writes them after the command's own and the cluster time.
func (s *Server) failCommandAfter(req *Request) bsoncore.Document {
	if !takesWriteConcern(req) {
		return nil
	}
	data, fired := s.failCommand.enter(func(d bsoncore.Document) bool {
		_, err := d.LookupErr("writeConcernError")
		return err == nil && failCommandMatches(d, req)
	})
	if !fired {
		return nil
	}
	wce := data.Lookup("writeConcernError")
	b := bsoncore.NewDocumentBuilder().AppendValue("writeConcernError", wce)
	var wcCode errs.Code
	if d, ok := wce.DocumentOK(); ok {
		if n, ok := asInt64(d.Lookup("code")); ok {
			wcCode = errs.Code(n)
		}
	}
	if labels := failCommandLabels(data, req, 0, wcCode); len(labels) > 0 {
		ab := bsoncore.NewArrayBuilder()
		for _, l := range labels {
			ab.AppendString(l)
		}
		b.AppendArray("errorLabels", ab.Build())
	}
	return b.Build()
}

// takesWriteConcern reports whether the command takes a write concern
// (mongod's supportsWriteConcern), as its descriptor says; aggregate does
// with $out or $merge (writeConcernWhen).
func takesWriteConcern(req *Request) bool {
	c := req.command()
	return c.writeConcern == yes || (c.writeConcernWhen != nil && c.writeConcernWhen(req))
}

// failCommandLabels returns the failpoint's errorLabels when it has an
// array of them (mongod's override, even when empty); otherwise the labels
// mongod's getErrorLabels gives the code (or the writeConcernError's
// code): RetryableWriteError for a retryable write, commitTransaction or
// abortTransaction failing with a retriable code, TransientTransactionError
// for a transaction's statement failing with one, and
// NonResumableChangeStreamError for ChangeStreamFatalError and
// ChangeStreamHistoryLost.
func failCommandLabels(data bsoncore.Document, req *Request, code, wcCode errs.Code) []string {
	if arr, ok := data.Lookup("errorLabels").ArrayOK(); ok {
		var out []string
		vals, _ := arr.Values()
		for _, v := range vals {
			if s, ok := v.StringValueOK(); ok {
				out = append(out, s)
			}
		}
		return out
	}
	if errs.NonResumableChangeStreamCode(code) {
		return []string{errs.LabelNonResumableChangeStream}
	}
	a, err := parseSessionArgs(req)
	if err != nil || !a.hasTxnNumber {
		return nil
	}
	commitOrAbort := req.Name == "commitTransaction" || req.Name == "abortTransaction"
	var labels []string
	if (commitOrAbort || (!a.hasAutocommit && req.command().retryable == yes)) && (retriableCode(code) || retriableCode(wcCode)) {
		labels = append(labels, errs.LabelRetryableWrite)
	}
	if a.hasAutocommit && code != 0 && transientTxnCode(code, wcCode != 0, commitOrAbort) {
		labels = append(labels, errs.LabelTransientTransaction)
	}
	return labels
}

// transientTxnCode is mongod's isTransientTransactionError: write
// conflicts, lock timeouts, prepared-transaction and snapshot errors; for
// commit and abort also NoSuchTransaction without a write concern error;
// for a statement also NoSuchTransaction and the retriable errors.
func transientTxnCode(c errs.Code, hasWCError, commitOrAbort bool) bool {
	switch c {
	case errs.WriteConflict, errs.LockTimeout, errs.PreparedTransactionInProgress,
		errs.SnapshotTooOld, errs.SnapshotUnavailable:
		return true
	case errs.NoSuchTransaction:
		return !commitOrAbort || !hasWCError
	}
	return !commitOrAbort && retriableCode(c)
}

// retriableCode reports mongod's RetriableError category: network,
// not-primary and shutdown errors.
func retriableCode(c errs.Code) bool {
	switch c {
	case errs.HostUnreachable, errs.HostNotFound, errs.NetworkTimeout, errs.SocketException,
		errs.ShutdownInProgress, errs.InterruptedAtShutdown, errs.PrimarySteppedDown,
		errs.NotWritablePrimary, errs.NotPrimaryNoSecondaryOk, errs.NotPrimaryOrSecondary,
		errs.InterruptedDueToReplStateChange, errs.ExceededTimeLimit:
		return true
	}
	return false
}

// failGetMoreAfterCursorCheckoutCheck is mongod's
// failGetMoreAfterCursorCheckout failpoint, which the change streams
// specification's tests use: a getMore that has checked out its cursor
// fails with the data's errorCode (InternalError without one), so the
// error is labelled as the getMore's own are (a change stream's
// resumable codes get ResumableChangeStreamError) and the cursor is
// killed. Its data's threadName, appName and namespace (the cursor's)
// choose the getMores it fails, as failCommand's do.
func (s *Server) failGetMoreAfterCursorCheckoutCheck(req *Request, cursorNS string) error {
	data, fired := s.failGetMoreAfterCursorCheckout.enter(func(d bsoncore.Document) bool {
		return failPointClientMatches(d, req, cursorNS)
	})
	if !fired {
		return nil
	}
	code := errs.InternalError
	if v, err := data.LookupErr("errorCode"); err == nil {
		if n, ok := asInt64(v); ok && bsonutil.IsNumber(v.Type) {
			code = errs.Code(n)
		}
	}
	s.log.Info("Failing getMore via 'failGetMoreAfterCursorCheckout' failpoint", "errorCode", int64(code))
	return errs.New(code, "Hit the 'failGetMoreAfterCursorCheckout' failpoint")
}

// onPrimaryTransactionalWrite is mongod's failpoint on a retryable write's
// statement (the retryable-writes specification's tests use it): with
// closeConnection (the default) the connection is closed after the write
// is done and recorded, without a reply, so the driver's retry must be
// answered from the record; with failBeforeCommitExceptionCode the write
// fails with that code and is not applied (mongod fails it before it
// commits; Lode before it runs, which leaves the same state). Lode
// evaluates it once per command, not per statement. run runs the write.
func (s *Server) onPrimaryWrite(req *Request, a sessionArgs,
	run func() (bsoncore.Document, error)) (bsoncore.Document, error) {
	data, fired := s.onPrimaryTransactionalWrite.enter(func(bsoncore.Document) bool { return true })
	if !fired {
		return run()
	}
	closeConn := true
	if v, err := data.LookupErr("closeConnection"); err == nil {
		closeConn = v.Type == bsoncore.TypeBoolean && v.Boolean()
	}
	if v, err := data.LookupErr("failBeforeCommitExceptionCode"); err == nil {
		if closeConn && req.conn != nil {
			req.conn.closeNow = true
		}
		n, _ := asInt64(v)
		return nil, errs.New(errs.Code(n), "Failing write for %s:%d due to failpoint. The write must not be reflected.", lsidString(a.lsid), a.txnNumber)
	}
	body, err := run()
	if err == nil && closeConn && req.conn != nil {
		s.log.Info("closing the connection after a retryable write: onPrimaryTransactionalWrite failpoint", "cmd", req.Name, "txnNumber", a.txnNumber)
		req.conn.closeNow = true
	}
	return body, err
}

// lsidString renders a session id's UUID for a message.
func lsidString(lsid bsoncore.Document) string {
	_, b, ok := lsid.Lookup("id").BinaryOK()
	if !ok || len(b) != 16 {
		return lsid.String()
	}
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// maxTimeAlwaysTimeOutCheck is mongod's maxTimeAlwaysTimeOut failpoint
// (the transactions specification's tests use it): a command with a
// maxTimeMS fails with MaxTimeMSExpired at once, as if its time had run
// out. Commands without one are not entered, nor is configureFailPoint,
// so that the failpoint can be turned off by a client that always sends
// maxTimeMS.
func (s *Server) maxTimeAlwaysTimeOutCheck(ctx context.Context, req *Request) error {
	if _, ok := ctx.Deadline(); !ok || req.Name == "configureFailPoint" {
		return nil
	}
	if _, fired := s.maxTimeAlwaysTimeOut.enter(func(bsoncore.Document) bool { return true }); fired {
		return errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
	}
	return nil
}
