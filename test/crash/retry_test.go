package crash

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

// The retryable-write tests: a write sent again with the same lsid and
// txnNumber after the server stopped (SIGTERM) or was killed (SIGKILL)
// must not be applied again, and must answer as its first attempt did,
// as mongod answers from config.transactions.

// rawSession sends commands with explicit lsid and txnNumber, as a
// driver retrying a write does, on bare connections.
type rawSession struct {
	t    *testing.T
	nc   net.Conn
	id   int32
	lsid bsoncore.Document
}

func newLSID() bsoncore.Document {
	u := make([]byte, 16)
	rand.Read(u)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return bsoncore.NewDocumentBuilder().AppendBinary("id", 4, u).Build()
}

func dialSession(t *testing.T, addr string, lsid bsoncore.Document) *rawSession {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawSession{t: t, nc: nc, lsid: lsid}
}

// run sends cmd (a document without $db, lsid and txnNumber) to db with
// the session's lsid and txnNumber txn (none when txn < 0).
func (r *rawSession) run(db string, cmd bson.D, txn int64, extra ...bson.E) bsoncore.Document {
	r.t.Helper()
	cmd = append(cmd, bson.E{Key: "$db", Value: db}, bson.E{Key: "lsid", Value: bson.Raw(r.lsid)})
	if txn >= 0 {
		cmd = append(cmd, bson.E{Key: "txnNumber", Value: txn})
	}
	cmd = append(cmd, extra...)
	body, err := bson.Marshal(cmd)
	if err != nil {
		r.t.Fatal(err)
	}
	r.id++
	_ = r.nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := r.nc.Write(wire.AppendMsg(nil, r.id, 0, 0, body)); err != nil {
		r.t.Fatal(err)
	}
	m, err := wire.ReadMessage(r.nc)
	if err != nil {
		r.t.Fatalf("reading reply: %v", err)
	}
	msg, ok := m.(*wire.Msg)
	if !ok {
		r.t.Fatalf("reply is %T, want OP_MSG", m)
	}
	return append(bsoncore.Document(nil), msg.Body...)
}

var journaled = bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "j", Value: true}}}

// replyCore drops the fields of a reply that vary between two answers of
// the same write ($clusterTime, operationTime, electionId...).
func replyCore(t *testing.T, d bsoncore.Document) bson.M {
	t.Helper()
	var m bson.M
	if err := bson.Unmarshal(d, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"$clusterTime", "operationTime", "electionId", "opTime"} {
		delete(m, k)
	}
	return m
}

func wantOK(t *testing.T, what string, d bsoncore.Document) {
	t.Helper()
	if d.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("%s: %v", what, d)
	}
}

func wantCode(t *testing.T, what string, d bsoncore.Document, code int32) {
	t.Helper()
	if d.Lookup("ok").AsFloat64() != 0 || d.Lookup("code").AsInt32() != code {
		t.Fatalf("%s: want error %d, got %v", what, code, d)
	}
}

func stopServer(cmd *exec.Cmd, sig syscall.Signal) {
	cmd.Process.Signal(sig)
	cmd.Wait()
}

func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	return c
}

// disconnect disconnects c within a second. The driver ends its pooled
// sessions on the way out, and when the server has been killed or
// stopped (a test's deferred stopServer runs before its cleanups) it
// waits for one to select, up to serverSelectionTimeout: 30 s added to
// a test that had finished.
func disconnect(c *mongo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.Disconnect(ctx)
}

// TestRetryableWritesAppliedOnceAcrossRestart replays, after a SIGTERM
// and after a SIGKILL, an $inc update, an insert batch, a delete and a
// findAndModify with their lsid and txnNumber: none is applied twice and
// each answers as its first attempt. An insert batch whose first attempt
// stopped at a duplicate key runs only its statements not yet executed.
func TestRetryableWritesAppliedOnceAcrossRestart(t *testing.T) {
	bin := buildLode(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			cmd, addr := startServer(t, bin, dataDir)
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			c := connect(t, "mongodb://"+addr+"/?directConnection=true")
			coll := c.Database("r").Collection("c", options.Collection().SetWriteConcern(writeconcern.Journaled()))
			ctx := context.Background()
			if _, err := coll.InsertMany(ctx, []any{
				bson.D{{Key: "_id", Value: "inc"}, {Key: "v", Value: 0}},
				bson.D{{Key: "_id", Value: "del"}},
				bson.D{{Key: "_id", Value: "fam"}, {Key: "v", Value: 0}},
				bson.D{{Key: "_id", Value: 21}},
			}); err != nil {
				t.Fatal(err)
			}
			type write struct {
				name string
				cmd  bson.D
				lsid bsoncore.Document
			}
			writes := []write{
				{"update", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
					bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "inc"}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}}},
					bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "up"}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}}, {Key: "upsert", Value: true}},
				}}}, nil},
				{"upsert", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{
					bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "up0"}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}}, {Key: "upsert", Value: true}},
				}}}, nil},
				{"insert", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
					bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "_id", Value: 11}}, bson.D{{Key: "_id", Value: 12}},
				}}}, nil},
				// A bulk insert large enough to be committed by ingestion
				// (storage/ingestcommit.go): its statements' records too.
				{"bulk insert", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bulkDocs(3000)}}, nil},
				{"delete", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{
					bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: "del"}}}, {Key: "limit", Value: 1}},
				}}}, nil},
				{"findAndModify", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: "fam"}}},
					{Key: "update", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 5}}}}}, {Key: "new", Value: true}}, nil},
			}
			first := map[string]bson.M{}
			for i := range writes {
				w := &writes[i]
				w.lsid = newLSID()
				r := dialSession(t, addr, w.lsid)
				rep := r.run("r", w.cmd, 7, journaled)
				wantOK(t, w.name, rep)
				if _, err := rep.LookupErr("writeErrors"); err == nil {
					t.Fatalf("%s: %v", w.name, rep)
				}
				first[w.name] = replyCore(t, rep)
			}
			// A batch that stops at its duplicate _id 21 (statement 1).
			partLSID := newLSID()
			part := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
				bson.D{{Key: "_id", Value: 20}}, bson.D{{Key: "_id", Value: 21}}, bson.D{{Key: "_id", Value: 22}},
			}}}
			rep := dialSession(t, addr, partLSID).run("r", part, 3, journaled)
			if rep.Lookup("n").AsInt32() != 1 {
				t.Fatalf("partial batch: %v", rep)
			}
			if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 21}}); err != nil {
				t.Fatal(err)
			}
			ss, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := ss.Lookup("lode", "storage", "commitsByIngestion").AsInt64OK(); n < 1 {
				t.Fatalf("the bulk insert was not committed by ingestion: %v", ss.Lookup("lode", "storage"))
			}

			stopServer(cmd, sig)
			cmd, addr = startServer(t, bin, dataDir)
			c = connect(t, "mongodb://"+addr+"/?directConnection=true")
			coll = c.Database("r").Collection("c")

			for _, w := range writes {
				r := dialSession(t, addr, w.lsid)
				rep := r.run("r", w.cmd, 7, journaled)
				wantOK(t, w.name+" retried", rep)
				got := replyCore(t, rep)
				if !equalM(got, first[w.name]) {
					t.Errorf("%s retried after %v: reply %v, first reply %v", w.name, sig, got, first[w.name])
				}
				// An older txnNumber is refused.
				wantCode(t, w.name+" older txnNumber", r.run("r", w.cmd, 6, journaled), 225)
			}
			rep = dialSession(t, addr, partLSID).run("r", part, 3, journaled)
			wantOK(t, "partial batch retried", rep)
			if rep.Lookup("n").AsInt32() != 3 {
				t.Errorf("partial batch retried: want n 3 (statement 0 from the first attempt, 1 and 2 now), got %v", rep)
			}
			if _, err := rep.LookupErr("writeErrors"); err == nil {
				t.Errorf("partial batch retried ran statement 0 again: %v", rep)
			}

			var inc, fam, up, up0 bson.M
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "up0"}}).Decode(&up0); err != nil {
				t.Fatal(err)
			}
			if up0["v"] != int32(1) {
				t.Errorf("after %v: upserted up0 %v, want v 1", sig, up0)
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "inc"}}).Decode(&inc); err != nil {
				t.Fatal(err)
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "fam"}}).Decode(&fam); err != nil {
				t.Fatal(err)
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "up"}}).Decode(&up); err != nil {
				t.Fatal(err)
			}
			if inc["v"] != int32(1) || fam["v"] != int32(5) || up["v"] != int32(1) {
				t.Errorf("after %v and retries: inc %v, fam %v, upserted %v; want v 1, 5, 1 (each write once)", sig, inc, fam, up)
			}
			n, err := coll.CountDocuments(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			// inc, fam, up, up0, 10, 11, 12, 20, 21, 22 ("del" deleted),
			// and the bulk insert's 3000.
			if n != 10+3000 {
				t.Errorf("after %v: %d documents, want 3010", sig, n)
			}
			stopServer(cmd, syscall.SIGTERM)
		})
	}
}

// bulkDocs returns n documents of about 500 bytes with _id "b0000"...
func bulkDocs(n int) bson.A {
	pad := strings.Repeat("x", 480)
	docs := make(bson.A, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("b%04d", i)}, {Key: "pad", Value: pad}}
	}
	return docs
}

func equalM(a, b bson.M) bool {
	x, _ := bson.Marshal(a)
	y, _ := bson.Marshal(b)
	var ma, mb bson.M
	_ = bson.Unmarshal(x, &ma)
	_ = bson.Unmarshal(y, &mb)
	// bson.M has no order: compare through sorted extended JSON.
	ja, _ := bson.MarshalExtJSON(sortedM(ma), true, false)
	jb, _ := bson.MarshalExtJSON(sortedM(mb), true, false)
	return bytes.Equal(ja, jb)
}

func sortedM(m bson.M) bson.D {
	var d bson.D
	for k, v := range m {
		if sub, ok := v.(bson.M); ok {
			v = sortedM(sub)
		}
		d = append(d, bson.E{Key: k, Value: v})
	}
	for i := 1; i < len(d); i++ {
		for j := i; j > 0 && d[j].Key < d[j-1].Key; j-- {
			d[j], d[j-1] = d[j-1], d[j]
		}
	}
	return d
}

// TestCommitTransactionRetriedAfterKill9 commits a transaction with
// j:true, kills the server with SIGKILL and sends commitTransaction again:
// it succeeds, as mongod answers from config.transactions; an older
// txnNumber is TransactionTooOld (225), a newer one never started
// NoSuchTransaction (251), and a retryable write under the transaction's
// number IncompleteTransactionHistory (217), as mongod's
// TransactionParticipant answers.
func TestCommitTransactionRetriedAfterKill9(t *testing.T) {
	bin := buildLode(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd, addr := startServer(t, bin, dataDir)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	c := connect(t, "mongodb://"+addr+"/?directConnection=true")
	accts := c.Database("bank").Collection("accounts", options.Collection().SetWriteConcern(writeconcern.Journaled()))
	ctx := context.Background()
	if _, err := accts.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "a"}, {Key: "bal", Value: 100}}, bson.D{{Key: "_id", Value: "b"}, {Key: "bal", Value: 0}}}); err != nil {
		t.Fatal(err)
	}
	lsid := newLSID()
	r := dialSession(t, addr, lsid)
	inTxn := []bson.E{{Key: "autocommit", Value: false}}
	move := func(id string, by int) bson.D {
		return bson.D{{Key: "update", Value: "accounts"}, {Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: id}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "bal", Value: by}}}}}}}}}
	}
	wantOK(t, "withdraw", r.run("bank", move("a", -30), 5, append(inTxn, bson.E{Key: "startTransaction", Value: true})...))
	wantOK(t, "deposit", r.run("bank", move("b", 30), 5, inTxn...))
	commit := bson.D{{Key: "commitTransaction", Value: 1}}
	wantOK(t, "commit", r.run("admin", commit, 5, append(inTxn, journaled)...))

	stopServer(cmd, syscall.SIGKILL)
	cmd, addr = startServer(t, bin, dataDir)
	r = dialSession(t, addr, lsid)
	wantOK(t, "commit retried after kill -9", r.run("admin", commit, 5, append(inTxn, journaled)...))
	// A retryable write under the committed transaction's number.
	wantCode(t, "retryable write under a transaction's txnNumber", r.run("bank", move("a", -30), 5, journaled), 217)
	wantCode(t, "commit of an older txnNumber", r.run("admin", commit, 4, inTxn...), 225)
	wantCode(t, "commit of a txnNumber never started", r.run("admin", commit, 6, inTxn...), 251)
	wantOK(t, "commit retried again", r.run("admin", commit, 5, inTxn...))

	c = connect(t, "mongodb://"+addr+"/?directConnection=true")
	checkBalances(t, c.Database("bank").Collection("accounts"), 70, 30)
	stopServer(cmd, syscall.SIGTERM)
}

func checkBalances(t *testing.T, accts *mongo.Collection, a, b int32) {
	t.Helper()
	for id, want := range map[string]int32{"a": a, "b": b} {
		var d struct {
			Bal int32 `bson:"bal"`
		}
		if err := accts.FindOne(context.Background(), bson.D{{Key: "_id", Value: id}}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		if d.Bal != want {
			t.Errorf("account %s: balance %d, want %d", id, d.Bal, want)
		}
	}
}

// commitDropProxy forwards connections to the server at upstream; the
// reply to the first commitTransaction it forwards is dropped: it calls
// onCommit (which restarts the server) and closes the client's
// connection instead, so the driver retries the commit.
type commitDropProxy struct {
	ln       net.Listener
	upstream atomic.Value // string
	dropped  atomic.Bool
	onCommit func()
	wg       sync.WaitGroup
}

func startProxy(t *testing.T, upstream string, onCommit func()) *commitDropProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &commitDropProxy{ln: ln, onCommit: onCommit}
	p.upstream.Store(upstream)
	go func() {
		for {
			cc, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go p.serve(cc)
		}
	}()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// readFrame reads one wire message.
func readFrame(r io.Reader) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(h[:]))
	if n < 16 || n > 48<<20 {
		return nil, io.ErrUnexpectedEOF
	}
	b := make([]byte, n)
	copy(b, h[:])
	_, err := io.ReadFull(r, b[4:])
	return b, err
}

// isCommit reports whether frame is an OP_MSG whose command is
// commitTransaction.
func isCommit(frame []byte) bool {
	if len(frame) < 21+5 || binary.LittleEndian.Uint32(frame[12:16]) != 2013 || frame[20] != 0 {
		return false
	}
	doc := bsoncore.Document(frame[21:])
	el, err := doc.IndexErr(0)
	return err == nil && el.Key() == "commitTransaction"
}

func (p *commitDropProxy) serve(cc net.Conn) {
	defer p.wg.Done()
	defer cc.Close()
	sc, err := net.DialTimeout("tcp", p.upstream.Load().(string), 5*time.Second)
	if err != nil {
		return
	}
	defer sc.Close()
	var drop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			f, err := readFrame(sc)
			if err != nil {
				cc.Close()
				return
			}
			if drop.Load() {
				// The commit reply: lost. The server goes down and
				// comes back while the driver waits.
				p.onCommit()
				cc.Close()
				sc.Close()
				return
			}
			if _, err := cc.Write(f); err != nil {
				return
			}
		}
	}()
	for {
		f, err := readFrame(cc)
		if err != nil {
			break
		}
		if isCommit(f) && p.dropped.CompareAndSwap(false, true) {
			drop.Store(true)
		}
		if _, err := sc.Write(f); err != nil {
			break
		}
	}
	sc.Close()
	<-done
}

// TestWithTransactionCommitReplyLostThenKill9 runs a withdrawal with the
// driver's WithTransaction through a proxy that drops the reply of the
// first commitTransaction; the server is then killed with SIGKILL and
// restarted before the driver retries the commit. The retried commit
// must succeed (the transaction committed), so the callback is not run
// again: the withdrawal is applied exactly once.
func TestWithTransactionCommitReplyLostThenKill9(t *testing.T) {
	bin := buildLode(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd, addr := startServer(t, bin, dataDir)
	var mu sync.Mutex
	defer func() {
		mu.Lock()
		cmd.Process.Kill()
		cmd.Wait()
		mu.Unlock()
	}()
	setup := connect(t, "mongodb://"+addr+"/?directConnection=true")
	ctx := context.Background()
	if _, err := setup.Database("bank").Collection("accounts", options.Collection().SetWriteConcern(writeconcern.Journaled())).
		InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "a"}, {Key: "bal", Value: 100}}, bson.D{{Key: "_id", Value: "b"}, {Key: "bal", Value: 0}}}); err != nil {
		t.Fatal(err)
	}
	setup.Disconnect(ctx)
	var proxy *commitDropProxy
	proxy = startProxy(t, addr, func() {
		mu.Lock()
		defer mu.Unlock()
		stopServer(cmd, syscall.SIGKILL)
		var naddr string
		cmd, naddr = startServer(t, bin, dataDir)
		proxy.upstream.Store(naddr)
	})
	c := connect(t, "mongodb://"+proxy.ln.Addr().String()+"/?directConnection=true")
	db := c.Database("bank")
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	runs := 0
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	j := true
	_, err = sess.WithTransaction(tctx, func(ctx context.Context) (any, error) {
		runs++
		accts := db.Collection("accounts")
		var a struct {
			Bal int32 `bson:"bal"`
		}
		if err := accts.FindOne(ctx, bson.D{{Key: "_id", Value: "a"}}).Decode(&a); err != nil {
			return nil, err
		}
		if a.Bal < 30 {
			return nil, nil
		}
		if _, err := accts.UpdateOne(ctx, bson.D{{Key: "_id", Value: "a"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "bal", Value: -30}}}}); err != nil {
			return nil, err
		}
		_, err := accts.UpdateOne(ctx, bson.D{{Key: "_id", Value: "b"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "bal", Value: 30}}}})
		return nil, err
	}, options.Transaction().SetReadConcern(readconcern.Snapshot()).
		SetWriteConcern(&writeconcern.WriteConcern{W: 1, Journal: &j}))
	if err != nil {
		t.Fatalf("WithTransaction: %v", err)
	}
	if !proxy.dropped.Load() {
		t.Fatal("the proxy saw no commitTransaction")
	}
	if runs != 1 {
		t.Errorf("the callback ran %d times: the retried commit was not answered as committed", runs)
	}
	mu.Lock()
	check := connect(t, "mongodb://"+proxy.upstream.Load().(string)+"/?directConnection=true")
	mu.Unlock()
	checkBalances(t, check.Database("bank").Collection("accounts"), 70, 30)
}

// TestRetryWaitsForItsWriteConcern: a write acknowledged at w:1 and
// retried with j:true is answered from its first attempt only once the
// journal covers it, as mongod waits for a retry's write concern. The
// server's periodic fsync is off (an hour), so only that wait syncs.
func TestRetryWaitsForItsWriteConcern(t *testing.T) {
	bin := buildLode(t)
	cmd, addr := startServer(t, bin, filepath.Join(t.TempDir(), "data"), "--sync-interval", "1h")
	defer stopServer(cmd, syscall.SIGTERM)
	c := connect(t, "mongodb://"+addr+"/?directConnection=true")
	syncWaits := func() int64 {
		var st bson.Raw
		if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return st.Lookup("metrics", "lode", "syncWaits").AsInt64()
	}
	r := dialSession(t, addr, newLSID())
	ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}}
	w1 := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}}}
	wantOK(t, "insert w:1", r.run("r", ins, 1, w1))
	before := syncWaits()
	rep := r.run("r", ins, 1, journaled)
	wantOK(t, "retry j:true", rep)
	if rep.Lookup("n").AsInt32() != 1 {
		t.Fatalf("retry: %v", rep)
	}
	if after := syncWaits(); after <= before {
		t.Errorf("the j:true retry waited for no fsync (syncWaits %d -> %d)", before, after)
	}
}
