package transactions_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode"
)

// transferCount is the number of transfers of TestTxnTransfers: 50,000 as
// the acceptance criterion asks when LODE_TXN_TRANSFERS=50000 is set, a
// smaller default so the package test stays short on a small machine.
func transferCount() int {
	if s := os.Getenv("LODE_TXN_TRANSFERS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 4000
}

const (
	txnAccounts = 1000
	txnStart    = 1000
)

func setupAccounts(t testing.TB, coll *mongo.Collection) {
	t.Helper()
	docs := make([]any, txnAccounts)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "balance", Value: int64(txnStart)}}
	}
	if _, err := coll.InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

// transfer moves amt from one account to another inside a transaction,
// checking funds first. It reports whether the transfer happened.
func transfer(ctx context.Context, sess *mongo.Session, coll *mongo.Collection, from, to int, amt int64) (bool, error) {
	res, err := sess.WithTransaction(ctx, func(ctx context.Context) (any, error) {
		var acct struct {
			Balance int64 `bson:"balance"`
		}
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: from}}).Decode(&acct); err != nil {
			return false, err
		}
		if acct.Balance < amt {
			return false, nil
		}
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: from}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -amt}}}}); err != nil {
			return false, err
		}
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: to}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: amt}}}}); err != nil {
			return false, err
		}
		return true, nil
	}, options.Transaction().SetReadConcern(readconcern.Snapshot()).SetWriteConcern(writeconcern.Majority()))
	if err != nil {
		return false, err
	}
	return res.(bool), nil
}

// runTransfers runs n random transfers on workers goroutines and returns
// how many moved money.
func runTransfers(t testing.TB, client *mongo.Client, coll *mongo.Collection, workers, n int) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var next, moved atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			sess, err := client.StartSession()
			if err != nil {
				errc <- err
				return
			}
			defer sess.EndSession(ctx)
			r := rand.New(rand.NewPCG(seed, 7))
			for next.Add(1) <= int64(n) {
				from, to := r.IntN(txnAccounts), r.IntN(txnAccounts-1)
				if to >= from {
					to++
				}
				ok, err := transfer(ctx, sess, coll, from, to, int64(1+r.IntN(500)))
				if err != nil {
					errc <- fmt.Errorf("transfer %d -> %d: %w", from, to, err)
					return
				}
				if ok {
					moved.Add(1)
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	return moved.Load()
}

func checkBalances(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	cur, err := coll.Find(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var accts []struct {
		ID      int   `bson:"_id"`
		Balance int64 `bson:"balance"`
	}
	if err := cur.All(context.Background(), &accts); err != nil {
		t.Fatal(err)
	}
	if len(accts) != txnAccounts {
		t.Fatalf("%d accounts, want %d", len(accts), txnAccounts)
	}
	var total int64
	for _, a := range accts {
		if a.Balance < 0 {
			t.Errorf("account %d has negative balance %d", a.ID, a.Balance)
		}
		total += a.Balance
	}
	if total != txnAccounts*txnStart {
		t.Fatalf("total balance %d, want %d", total, txnAccounts*txnStart)
	}
}

func TestTxnTransfers(t *testing.T) {
	t.Parallel()
	var conflicts atomic.Int64
	mon := &event.CommandMonitor{Failed: func(_ context.Context, e *event.CommandFailedEvent) {
		if e.Failure != nil && strings.Contains(e.Failure.Error(), "WriteConflict") {
			conflicts.Add(1)
		}
	}}
	db, err := lode.Open(t.TempDir(), lode.WithClientOptions(options.Client().SetMonitor(mon)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	coll := db.Client().Database("bank").Collection("accounts")
	setupAccounts(t, coll)
	n := transferCount()
	start := time.Now()
	moved := runTransfers(t, db.Client(), coll, 32, n)
	el := time.Since(start)
	t.Logf("%d transfers (%d moved money, %d write conflicts retried) by 32 goroutines in %v: %.0f/s",
		n, moved, conflicts.Load(), el, float64(n)/el.Seconds())
	if moved == 0 {
		t.Fatal("no transfer moved money")
	}
	if conflicts.Load() == 0 {
		t.Error("no write conflict happened: the test does not exercise the retry path")
	}
	checkBalances(t, coll)
}
