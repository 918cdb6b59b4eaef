package crash

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

const (
	txnRounds   = 5
	txnAccounts = 50
	txnBalance  = 1000
)

// TestKill9KeepsAcknowledgedTransactions runs transfers in transactions
// committed with j:true, each also inserting a ledger entry, and kills
// the server with SIGKILL mid-stream. After every restart: each
// acknowledged commit's ledger entry exists, no transaction is partly
// applied (every balance equals its start plus the ledger's movements, and
// the total is conserved), and validate finds the collections consistent.
func TestKill9KeepsAcknowledgedTransactions(t *testing.T) {
	acceptanceOnly(t)
	tmp := t.TempDir()
	bin := buildLode(t)
	dataDir := filepath.Join(tmp, "data")
	var mu sync.Mutex
	acked := map[string]bool{}
	total, skipped := 0, 0
	journal := true
	for round := 0; round <= txnRounds; round++ {
		cmd, addr := startServer(t, bin, dataDir)
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/").SetTimeout(3 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		db := client.Database("bank")
		if round == 0 {
			docs := make([]any, txnAccounts)
			for i := range docs {
				docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "balance", Value: int64(txnBalance)}}
			}
			if _, err := db.Collection("accounts", options.Collection().SetWriteConcern(writeconcern.Journaled())).InsertMany(context.Background(), docs); err != nil {
				t.Fatal(err)
			}
		} else {
			mu.Lock()
			checkTxnState(t, round, db, acked)
			mu.Unlock()
		}
		if round == txnRounds {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
			disconnect(client)
			break
		}
		var wg sync.WaitGroup
		ctx, cancel := context.WithCancel(context.Background())
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sess, err := client.StartSession()
				if err != nil {
					return
				}
				defer sess.EndSession(context.Background())
				for i := 0; ctx.Err() == nil; i++ {
					id := fmt.Sprintf("r%d-w%d-%d", round, w, i)
					from, to := rand.IntN(txnAccounts), rand.IntN(txnAccounts)
					if from == to {
						continue
					}
					amt := int64(1 + rand.IntN(50))
					// The transfer's result says whether it wrote: a transfer
					// from an account short of the amount commits nothing,
					// so there is no ledger entry to find after a crash.
					wrote, err := sess.WithTransaction(ctx, func(ctx context.Context) (any, error) {
						accts := db.Collection("accounts")
						var a struct {
							Balance int64 `bson:"balance"`
						}
						if err := accts.FindOne(ctx, bson.D{{Key: "_id", Value: from}}).Decode(&a); err != nil {
							return nil, err
						}
						if a.Balance < amt {
							return false, nil
						}
						if _, err := accts.UpdateOne(ctx, bson.D{{Key: "_id", Value: from}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -amt}}}}); err != nil {
							return nil, err
						}
						if _, err := accts.UpdateOne(ctx, bson.D{{Key: "_id", Value: to}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: amt}}}}); err != nil {
							return nil, err
						}
						_, err := db.Collection("ledger").InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "from", Value: from}, {Key: "to", Value: to}, {Key: "amt", Value: amt}})
						return true, err
					}, options.Transaction().SetReadConcern(readconcern.Snapshot()).
						SetWriteConcern(&writeconcern.WriteConcern{W: "majority", Journal: &journal}))
					if err != nil {
						return
					}
					if ok, _ := wrote.(bool); !ok {
						mu.Lock()
						skipped++
						mu.Unlock()
						continue
					}
					mu.Lock()
					acked[id] = true
					total++
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		cancel()
		wg.Wait()
		disconnect(client)
	}
	t.Logf("%d rounds, %d acknowledged transactions, %d committed empty (the account was short)", txnRounds, total, skipped)
	if total < txnRounds {
		t.Fatalf("too few acknowledged transactions (%d)", total)
	}
}

// checkTxnState verifies the acknowledged ledger entries and that every
// balance matches the ledger (no partial transaction survived).
func checkTxnState(t *testing.T, round int, db *mongo.Database, acked map[string]bool) {
	t.Helper()
	ctx := context.Background()
	cur, err := db.Collection("ledger").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var ledger []struct {
		ID   string `bson:"_id"`
		From int    `bson:"from"`
		To   int    `bson:"to"`
		Amt  int64  `bson:"amt"`
	}
	if err := cur.All(ctx, &ledger); err != nil {
		t.Fatal(err)
	}
	want := make([]int64, txnAccounts)
	for i := range want {
		want[i] = txnBalance
	}
	seen := map[string]bool{}
	for _, l := range ledger {
		seen[l.ID] = true
		want[l.From] -= l.Amt
		want[l.To] += l.Amt
	}
	for id := range acked {
		if !seen[id] {
			t.Errorf("round %d: acknowledged transaction %s lost", round, id)
		}
	}
	cur, err = db.Collection("accounts").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var accts []struct {
		ID      int   `bson:"_id"`
		Balance int64 `bson:"balance"`
	}
	if err := cur.All(ctx, &accts); err != nil {
		t.Fatal(err)
	}
	for _, a := range accts {
		if a.Balance != want[a.ID] {
			t.Errorf("round %d: account %d balance %d, ledger says %d (partial transaction)", round, a.ID, a.Balance, want[a.ID])
		}
	}
	for _, coll := range []string{"accounts", "ledger"} {
		var res bson.Raw
		err := db.RunCommand(ctx, bson.D{{Key: "validate", Value: coll}}).Decode(&res)
		var se mongo.ServerError
		switch {
		case err != nil && coll == "ledger" && len(ledger) == 0 && errors.As(err, &se) && se.HasErrorCode(26):
			// No transaction has committed yet: the ledger need not exist.
		case err != nil:
			t.Errorf("round %d: validate %s failed: %v", round, coll, err)
		case !res.Lookup("valid").Boolean():
			t.Errorf("round %d: validate %s: %v", round, coll, res)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}
