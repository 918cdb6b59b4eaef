package admin_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestSetUserWriteBlockMode: with global true, writes to user databases
// fail with UserWritesBlocked (372) while reads and writes to admin,
// config and local go on; global false lifts the block. The command
// returns only after the writes already running have ended: no insert
// is acknowledged after its reply.
func TestSetUserWriteBlockMode(t *testing.T) {
	t.Parallel()
	ldb, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	admin := ldb.Client().Database("admin")
	coll := d.Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	block := func(on bool) bson.Raw {
		t.Helper()
		r, err := admin.RunCommand(ctx, bson.D{{Key: "setUserWriteBlockMode", Value: 1}, {Key: "global", Value: on}}).Raw()
		testenv.WantOK(t, r, err)
		return r
	}

	// Writers running while the block comes: every acknowledged insert
	// happened before the command's reply.
	var acked atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, err := coll.InsertOne(context.Background(), bson.D{{Key: "w", Value: w}, {Key: "i", Value: i}})
				if err == nil {
					acked.Add(1)
					continue
				}
				if code, _ := testenv.ErrCode(t, err); code != 372 {
					t.Errorf("insert during the block: %v, want UserWritesBlocked", err)
				}
				return
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	r := block(true)
	atReply := testenv.Count(t, coll, bson.D{})
	close(stop)
	wg.Wait()
	if acked.Load() == 0 {
		t.Fatal("no insert ran before the block")
	}
	if _, _, ok := r.Lookup("operationTime").TimestampOK(); !ok {
		t.Errorf("reply %v has no operationTime", r)
	}
	n := testenv.Count(t, coll, bson.D{})
	if n != acked.Load()+1 {
		t.Errorf("%d documents, want the %d acknowledged inserts and the first", n, acked.Load())
	}
	if n != atReply {
		t.Errorf("%d documents just after setUserWriteBlockMode replied, %d once the writers stopped: a write ran on after the reply", atReply, n)
	}

	// Every kind of user write is refused; reads are not.
	for name, f := range map[string]func() error{
		"insert": func() error { _, err := coll.InsertOne(ctx, bson.D{}); return err },
		"update": func() error {
			_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
			return err
		},
		"delete":        func() error { _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); return err },
		"findAndModify": func() error { return coll.FindOneAndDelete(ctx, bson.D{{Key: "_id", Value: 1}}).Err() },
		"create":        func() error { return d.CreateCollection(ctx, "new") },
		"drop":          func() error { return coll.Drop(ctx) },
		"createIndexes": func() error {
			_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}})
			return err
		},
		"$out": func() error {
			cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$out", Value: "out"}}})
			if err == nil {
				cur.Close(ctx)
			}
			return err
		},
		"renameCollection": func() error {
			return admin.RunCommand(ctx, bson.D{{Key: "renameCollection", Value: d.Name() + ".c"}, {Key: "to", Value: d.Name() + ".c2"}}).Err()
		},
	} {
		err := f()
		if code, _ := testenv.ErrCode(t, err); code != 372 {
			t.Errorf("%s while blocked: %v, want UserWritesBlocked (372)", name, err)
		} else if ce, ok := err.(mongo.CommandError); ok && ce.Name != "UserWritesBlocked" {
			t.Errorf("%s: codeName %q", name, ce.Name)
		}
	}
	if testenv.FindDoc(t, coll, 1) == nil {
		t.Error("a read failed or the document is gone")
	}
	if _, err := ldb.Client().Database("config").Collection("mine").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Errorf("a write to config while user writes are blocked: %v", err)
	}

	block(false)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "after", Value: true}}); err != nil {
		t.Errorf("insert after the block is lifted: %v", err)
	}

	// A long insert running when the block comes ends before the reply.
	big := d.Collection("big")
	docs := make([]any, 200000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	insErr := make(chan error, 1)
	go func() {
		_, err := big.InsertMany(context.Background(), docs)
		insErr <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); ; {
		r, err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "command.insert", Value: "big"}}).Raw()
		testenv.WantOK(t, r, err)
		if arr, _ := r.Lookup("inprog").Array().Values(); len(arr) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the long insert never showed in currentOp")
		}
		time.Sleep(time.Millisecond)
	}
	block(true)
	bigAtReply := testenv.Count(t, big, bson.D{})
	err := <-insErr
	if final := testenv.Count(t, big, bson.D{}); final != bigAtReply {
		t.Errorf("the running insert wrote %d documents by the block's reply, %d in the end (err %v): it went on after the reply", bigAtReply, final, err)
	}
	block(false)

	// Arguments as mongod checks them.
	for _, c := range []struct {
		cmd  bson.D
		code int
	}{
		{bson.D{{Key: "setUserWriteBlockMode", Value: 1}}, 40414},
		{bson.D{{Key: "setUserWriteBlockMode", Value: 1}, {Key: "global", Value: 1}}, 14},
		{bson.D{{Key: "setUserWriteBlockMode", Value: 1}, {Key: "global", Value: true}, {Key: "x", Value: 1}}, 40415},
	} {
		err := admin.RunCommand(ctx, c.cmd).Err()
		if code, _ := testenv.ErrCode(t, err); code != c.code {
			t.Errorf("%v: %v, want code %d", c.cmd, err, c.code)
		}
	}
	err = d.RunCommand(ctx, bson.D{{Key: "setUserWriteBlockMode", Value: 1}, {Key: "global", Value: true}}).Err()
	if code, _ := testenv.ErrCode(t, err); code != 13 {
		t.Errorf("on a user database: %v, want Unauthorized", err)
	}
}

// TestUserWriteBlockModeSurvivesRestart: as mongod, the block is kept
// across a restart (config.user_writes_critical_sections), and so is
// its lifting.
func TestUserWriteBlockModeSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := testenv.Ctx(t)
	open := func() *lode.DB {
		t.Helper()
		db, err := lode.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	set := func(db *lode.DB, on bool) {
		t.Helper()
		r, err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "setUserWriteBlockMode", Value: 1}, {Key: "global", Value: on}}).Raw()
		testenv.WantOK(t, r, err)
	}
	insert := func(db *lode.DB) error {
		_, err := db.Client().Database("app").Collection("c").InsertOne(ctx, bson.D{})
		return err
	}
	db := open()
	set(db, true)
	db.Close()
	db = open()
	if code, _ := testenv.ErrCode(t, insert(db)); code != 372 {
		t.Errorf("after a restart with writes blocked, an insert: code %d, want 372", code)
	}
	set(db, false)
	db.Close()
	db = open()
	defer db.Close()
	if err := insert(db); err != nil {
		t.Errorf("after a restart with the block lifted, an insert: %v", err)
	}
}
