// Package failpoints tests configureFailPoint and the failCommand
// failpoint through the Go driver, as drivers' own test suites use them.
package failpoints

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// recorder keeps the command events of one command name.
type recorder struct {
	name      string
	mu        sync.Mutex
	started   int
	succeeded []bson.Raw
	failed    []error
}

func (r *recorder) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if e.CommandName == r.name {
				r.mu.Lock()
				r.started++
				r.mu.Unlock()
			}
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			if e.CommandName == r.name {
				r.mu.Lock()
				r.succeeded = append(r.succeeded, append(bson.Raw(nil), e.Reply...))
				r.mu.Unlock()
			}
		},
		Failed: func(_ context.Context, e *event.CommandFailedEvent) {
			if e.CommandName == r.name {
				r.mu.Lock()
				r.failed = append(r.failed, e.Failure)
				r.mu.Unlock()
			}
		},
	}
}

// setFailPoint runs configureFailPoint on admin and returns its reply.
func setFailPoint(t *testing.T, c *mongo.Client, mode any, data bson.D) bson.Raw {
	t.Helper()
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}}
	if data != nil {
		cmd = append(cmd, bson.E{Key: "data", Value: data})
	}
	reply, err := testenv.RunCmd(t, c.Database("admin"), cmd)
	if err != nil {
		t.Fatalf("configureFailPoint: %v", err)
	}
	t.Cleanup(func() {
		_, _ = c.Database("admin").RunCommand(context.Background(),
			bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}).Raw()
	})
	return reply
}

func code(err error) int {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	var we mongo.WriteException
	if errors.As(err, &we) && we.WriteConcernError != nil {
		return we.WriteConcernError.Code
	}
	return -1
}

// TestRetryableInsertFailsOnce is the acceptance: an insert made
// to fail once with a retryable error is retried by the driver, which
// succeeds; the document is there exactly once and the driver sent two
// inserts. Without errorLabels, Lode labels a retriable code on a
// retryable write RetryableWriteError itself, as mongod does.
func TestRetryableInsertFailsOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		data bson.D
		code int
	}{
		{"labelled", bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 91},
			{Key: "errorLabels", Value: bson.A{"RetryableWriteError"}}}, 91},
		{"server labels", bson.D{{Key: "failCommands", Value: bson.A{"insert"}}, {Key: "errorCode", Value: 11600}}, 11600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{name: "insert"}
			db, d := testenv.Open(t, lode.WithTestCommands(), lode.WithClientOptions(options.Client().SetMonitor(rec.monitor())))
			reply := setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 1}}, tc.data)
			if n, ok := reply.Lookup("count").Int32OK(); !ok || n != 0 {
				t.Fatalf("configureFailPoint reply %v, want count: 0 (int32)", reply)
			}
			coll := d.Collection("retry")
			if _, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: "once"}}); err != nil {
				t.Fatalf("retryable insert: %v", err)
			}
			if n := testenv.Count(t, coll, bson.D{}); n != 1 {
				t.Fatalf("%d documents, want 1", n)
			}
			rec.mu.Lock()
			started, failed, succeeded := rec.started, rec.failed, rec.succeeded
			rec.mu.Unlock()
			if started != 2 || len(failed) != 1 || len(succeeded) != 1 {
				t.Fatalf("insert attempts: started %d, failed %d, succeeded %d; want 2, 1, 1", started, len(failed), len(succeeded))
			}
			// The monitor sees the driver's own error type.
			var de driver.Error
			if !errors.As(failed[0], &de) || int(de.Code) != tc.code || !de.HasErrorLabel("RetryableWriteError") ||
				de.Message != "Failing command via 'failCommand' failpoint" {
				t.Fatalf("first attempt failed with %v", failed[0])
			}
			// The failpoint fired once: turning it off reports count 1.
			off := setFailPoint(t, db.Client(), "off", nil)
			if n := off.Lookup("count").Int32(); n != 1 {
				t.Fatalf("count after the insert: %d, want 1", n)
			}
		})
	}
}

// TestErrorReply checks the failed command's reply: mongod's message,
// code, codeName and the failpoint's errorLabels exactly.
func TestErrorReply(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	setFailPoint(t, db.Client(), "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"find"}},
		{Key: "errorCode", Value: 189}, {Key: "errorLabels", Value: bson.A{"Custom"}}})
	err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "find", Value: "c"}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 189 || ce.Name != "PrimarySteppedDown" ||
		ce.Message != "Failing command via 'failCommand' failpoint" || len(ce.Labels) != 1 || ce.Labels[0] != "Custom" {
		t.Fatalf("got %#v", err)
	}
	// Commands not named are not failed, and neither is configureFailPoint.
	if err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "count", Value: "c"}}).Err(); err != nil {
		t.Fatalf("count: %v", err)
	}
	setFailPoint(t, db.Client(), "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"configureFailPoint", "findandmodify"}},
		{Key: "errorCode", Value: 2}})
	// findandmodify names findAndModify too.
	err = d.Collection("c").FindOneAndUpdate(testenv.Ctx(t), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}).Err()
	if code(err) != 2 {
		t.Fatalf("findAndModify: %v, want code 2", err)
	}
}

// TestCloseConnection: the connection is closed without a reply, and the
// next command works.
func TestCloseConnection(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"find"}},
		{Key: "closeConnection", Value: true}})
	// RunCommand is never retried, so the network error reaches us.
	err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "find", Value: "c"}}).Err()
	if !mongo.IsNetworkError(err) {
		t.Fatalf("find: %v, want a network error", err)
	}
	if err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "find", Value: "c"}}).Err(); err != nil {
		t.Fatalf("find after: %v", err)
	}
}

// TestBlockConnection: the command waits blockTimeMS and then runs; with
// a shorter maxTimeMS it fails with MaxTimeMSExpired when that ends.
func TestBlockConnection(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"ping"}},
		{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 300}})
	start := time.Now()
	if err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 300*time.Millisecond || el > 5*time.Second {
		t.Fatalf("blocked ping took %v, want 300ms to 5s", el)
	}
	setFailPoint(t, db.Client(), "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}},
		{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 10000}})
	start = time.Now()
	err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "ping", Value: 1}, {Key: "maxTimeMS", Value: 200}}).Err()
	if code(err) != 50 {
		t.Fatalf("ping with maxTimeMS 200: %v, want MaxTimeMSExpired", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("maxTimeMS did not end the block: %v", el)
	}
	setFailPoint(t, db.Client(), "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}},
		{Key: "blockConnection", Value: true}})
	if err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "ping", Value: 1}}).Err(); code(err) != 72 {
		t.Fatalf("blockConnection without blockTimeMS: %v, want InvalidOptions", err)
	}
}

// TestWriteConcernError: the write is done and the reply carries the
// failpoint's writeConcernError as given.
func TestWriteConcernError(t *testing.T) {
	t.Parallel()
	rec := &recorder{name: "insert"}
	db, d := testenv.Open(t, lode.WithTestCommands(), lode.WithClientOptions(options.Client().SetMonitor(rec.monitor()).SetRetryWrites(false)))
	wce := bson.D{{Key: "code", Value: int32(100)}, {Key: "codeName", Value: "UnsatisfiableWriteConcern"},
		{Key: "errmsg", Value: "Not enough data-bearing nodes"},
		{Key: "errInfo", Value: bson.D{{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(2)}}}}}}
	setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"insert"}},
		{Key: "writeConcernError", Value: wce}})
	coll := d.Collection("wce")
	_, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 1}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != 100 ||
		we.WriteConcernError.Message != "Not enough data-bearing nodes" {
		t.Fatalf("insert: %#v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1: the write is done", n)
	}
	rec.mu.Lock()
	succeeded := rec.succeeded
	rec.mu.Unlock()
	if len(succeeded) != 1 {
		t.Fatalf("%d insert replies", len(succeeded))
	}
	r := succeeded[0]
	want, _ := bson.Marshal(wce)
	if got := r.Lookup("writeConcernError").Document(); !bytesEqual(got, want) || r.Lookup("n").Int32() != 1 || r.Lookup("ok").Double() != 1 {
		t.Fatalf("reply %v", r)
	}
	// times: 1 is used up: the next insert has no writeConcernError.
	if _, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// TestModes: {skip: n}, {times: n}, alwaysOn, off and
// activationProbability, with the count configureFailPoint reports.
func TestModes(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	ping := func() error { return d.RunCommand(testenv.Ctx(t), bson.D{{Key: "ping", Value: 1}}).Err() }
	fail := bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "errorCode", Value: 2}}
	expect := func(what string, pattern ...bool) {
		t.Helper()
		for i, fails := range pattern {
			if err := ping(); (err != nil) != fails || (fails && code(err) != 2) {
				t.Fatalf("%s: ping %d: %v, want failing %v", what, i, err, fails)
			}
		}
	}
	setFailPoint(t, db.Client(), bson.D{{Key: "skip", Value: 2}}, fail)
	expect("skip 2", false, false, true, true, true)
	if n := setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 2}}, fail).Lookup("count").Int32(); n != 3 {
		t.Fatalf("count after skip: %d, want 3", n)
	}
	expect("times 2", true, true, false, false)
	setFailPoint(t, db.Client(), "alwaysOn", fail)
	expect("alwaysOn", true, true, true)
	if n := setFailPoint(t, db.Client(), "off", nil).Lookup("count").Int32(); n != 8 {
		t.Fatalf("count: %d, want 8 (times entered, ever)", n)
	}
	expect("off", false, false)
	setFailPoint(t, db.Client(), bson.D{{Key: "activationProbability", Value: 0.0}}, fail)
	expect("probability 0", false, false, false)
	setFailPoint(t, db.Client(), bson.D{{Key: "activationProbability", Value: 1}}, fail)
	expect("probability 1", true, true)
}

// TestConfigureErrors: mongod's errors for bad modes and unknown names.
func TestConfigureErrors(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t, lode.WithTestCommands())
	admin := db.Client().Database("admin")
	for _, tc := range []struct {
		cmd  bson.D
		code int
	}{
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}}, 20},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "sometimes"}}, 2},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: -1}}}}, 2},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "activationProbability", Value: 2}}}}, 2},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "activationProbability", Value: "x"}}}}, 14},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "often", Value: 1}}}}, 2},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: 1}}, 14},
		{bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"}, {Key: "data", Value: 1}}, 14},
		{bson.D{{Key: "configureFailPoint", Value: "noSuchFailPoint"}, {Key: "mode", Value: "alwaysOn"}}, 266},
	} {
		if _, err := testenv.RunCmd(t, admin, tc.cmd); code(err) != tc.code {
			t.Errorf("%v: %v, want code %d", tc.cmd, err, tc.code)
		}
	}
	_, err := testenv.RunCmd(t, db.Client().Database("test"), bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
	if code(err) != 13 {
		t.Errorf("on a database other than admin: %v, want Unauthorized", err)
	}
}

// TestAppName: only the client whose hello named that application fails.
func TestAppName(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	victim, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetAppName("victim"))
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Disconnect(context.Background())
	setFailPoint(t, db.Client(), "alwaysOn", bson.D{{Key: "failCommands", Value: bson.A{"ping"}},
		{Key: "errorCode", Value: 2}, {Key: "appName", Value: "victim"}})
	ping := bson.D{{Key: "ping", Value: 1}}
	if err := victim.Database("test").RunCommand(testenv.Ctx(t), ping).Err(); code(err) != 2 {
		t.Fatalf("victim's ping: %v, want code 2", err)
	}
	if err := d.RunCommand(testenv.Ctx(t), ping).Err(); err != nil {
		t.Fatalf("other client's ping: %v", err)
	}
}

// TestWithoutTestCommands: configureFailPoint is CommandNotFound, as on a
// mongod without enableTestCommands, and getParameter says so.
func TestWithoutTestCommands(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		var opts []lode.Option
		if on {
			opts = append(opts, lode.WithTestCommands())
		}
		db, _ := testenv.Open(t, opts...)
		admin := db.Client().Database("admin")
		_, err := testenv.RunCmd(t, admin, bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
		if on && err != nil || !on && code(err) != 59 {
			t.Fatalf("test commands %v: %v", on, err)
		}
		r, err := testenv.RunCmd(t, admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "enableTestCommands", Value: 1}})
		if err != nil || r.Lookup("enableTestCommands").Boolean() != on {
			t.Fatalf("getParameter enableTestCommands: %v %v, want %v", r, err, on)
		}
	}
}

// TestAuth: with authentication on, configureFailPoint needs an
// authenticated user (mongod asks for no privilege beyond that).
func TestAuth(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t, lode.WithAuth("admin", "pw"), lode.WithTestCommands())
	anon, err := mongo.Connect(options.Client().ApplyURI(db.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Disconnect(context.Background())
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}
	if _, err := testenv.RunCmd(t, anon.Database("admin"), cmd); code(err) != 13 {
		t.Fatalf("unauthenticated: %v, want Unauthorized", err)
	}
	if _, err := testenv.RunCmd(t, db.Client().Database("admin"), cmd); err != nil {
		t.Fatalf("as root: %v", err)
	}
}

// TestTransactionStatementLabel: a transaction's statement failed by the
// failpoint with a retriable code and no errorLabels is labelled
// TransientTransactionError, as mongod labels it.
func TestTransactionStatementLabel(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	coll := d.Collection("txn")
	if _, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "failCommands", Value: bson.A{"insert"}},
		{Key: "errorCode", Value: 10107}})
	s, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.EndSession(context.Background())
	if err := s.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(mongo.NewSessionContext(testenv.Ctx(t), s), bson.D{{Key: "_id", Value: 1}})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 10107 || !ce.HasErrorLabel("TransientTransactionError") || ce.HasErrorLabel("RetryableWriteError") {
		t.Fatalf("insert in a transaction: %#v", err)
	}
	_ = s.AbortTransaction(context.Background())
}

// TestOnPrimaryTransactionalWrite: the retryable-writes specification's
// failpoint. With closeConnection the insert is done and recorded, the
// connection closes without a reply, and the driver's retry is answered
// from the record: one document. With failBeforeCommitExceptionCode the
// write fails and is not applied.
func TestOnPrimaryTransactionalWrite(t *testing.T) {
	t.Parallel()
	rec := &recorder{name: "insert"}
	db, d := testenv.Open(t, lode.WithTestCommands(), lode.WithClientOptions(options.Client().SetMonitor(rec.monitor())))
	admin := db.Client().Database("admin")
	set := func(data bson.D) {
		t.Helper()
		if _, err := testenv.RunCmd(t, admin, bson.D{{Key: "configureFailPoint", Value: "onPrimaryTransactionalWrite"},
			{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}}, {Key: "data", Value: data}}); err != nil {
			t.Fatal(err)
		}
	}
	coll := d.Collection("opw")
	set(bson.D{{Key: "closeConnection", Value: true}})
	if _, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert retried after the connection closed: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
	rec.mu.Lock()
	started, failed := rec.started, len(rec.failed)
	rec.mu.Unlock()
	if started != 2 || failed != 1 {
		t.Fatalf("insert attempts %d (failed %d), want 2 (1)", started, failed)
	}
	set(bson.D{{Key: "closeConnection", Value: false}, {Key: "failBeforeCommitExceptionCode", Value: 2}})
	_, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 2}})
	if code(err) != 2 {
		t.Fatalf("insert: %v, want code 2", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1: the failed write is not applied", n)
	}
}

// TestMaxTimeAlwaysTimeOut: with the failpoint on, a command with
// maxTimeMS fails with MaxTimeMSExpired and one without runs.
func TestMaxTimeAlwaysTimeOut(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	admin := db.Client().Database("admin")
	cfg := func(mode string) {
		t.Helper()
		if _, err := testenv.RunCmd(t, admin, bson.D{{Key: "configureFailPoint", Value: "maxTimeAlwaysTimeOut"}, {Key: "mode", Value: mode}}); err != nil {
			t.Fatal(err)
		}
	}
	cfg("alwaysOn")
	defer cfg("off")
	if err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "find", Value: "c"}, {Key: "maxTimeMS", Value: 60000}}).Err(); code(err) != 50 {
		t.Fatalf("find with maxTimeMS: %v, want MaxTimeMSExpired", err)
	}
	// No deadline on the context: the driver sends no maxTimeMS.
	if err := d.RunCommand(context.Background(), bson.D{{Key: "find", Value: "c"}}).Err(); err != nil {
		t.Fatalf("find without maxTimeMS: %v", err)
	}
}

// TestCommitLabels: commitTransaction failed by the failpoint without
// errorLabels gets mongod's labels: NoSuchTransaction and
// PreparedTransactionInProgress are TransientTransactionError (so the
// driver's WithTransaction retries the whole transaction), and neither is
// RetryableWriteError.
func TestCommitLabels(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithTestCommands())
	coll := d.Collection("commitlabels")
	ctx := testenv.Ctx(t)
	if err := d.CreateCollection(ctx, "commitlabels"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code                 int
		transient, retryable bool
	}{{251, true, false}, {267, true, false}} {
		s, err := db.Client().StartSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(ctx, s)
		if _, err := coll.InsertOne(sc, bson.D{{Key: "code", Value: tc.code}}); err != nil {
			t.Fatal(err)
		}
		setFailPoint(t, db.Client(), bson.D{{Key: "times", Value: 2}}, bson.D{{Key: "failCommands", Value: bson.A{"commitTransaction"}},
			{Key: "errorCode", Value: tc.code}})
		err = s.CommitTransaction(ctx)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || int(ce.Code) != tc.code || ce.HasErrorLabel("TransientTransactionError") != tc.transient ||
			ce.HasErrorLabel("RetryableWriteError") != tc.retryable {
			t.Fatalf("commit failing with %d: %#v", tc.code, err)
		}
		if tc.code == 267 && ce.Name != "PreparedTransactionInProgress" {
			t.Fatalf("code 267 is named %q", ce.Name)
		}
		_ = s.AbortTransaction(ctx)
		s.EndSession(ctx)
		setFailPoint(t, db.Client(), "off", nil)
	}
}
