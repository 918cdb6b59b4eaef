package transfer

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

var errCrash = errors.New("injected crash")

func openBank(t *testing.T) *Bank {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return New(db.Client().Database("bank"))
}

func balances(t *testing.T, b *Bank) map[int64]Account {
	t.Helper()
	cur, err := b.Accounts().Find(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var accts []struct {
		ID      int64           `bson:"_id"`
		Balance int64           `bson:"balance"`
		Txns    []bson.ObjectID `bson:"txns"`
	}
	if err := cur.All(context.Background(), &accts); err != nil {
		t.Fatal(err)
	}
	out := map[int64]Account{}
	for _, a := range accts {
		out[a.ID] = Account{ID: a.ID, Balance: a.Balance, Txns: a.Txns}
	}
	return out
}

func TestSeedTransfer(t *testing.T) {
	ctx := context.Background()
	b := openBank(t)
	for id, bal := range map[int64]int64{1: 100, 2: 0} {
		if err := b.Open(ctx, id, bal); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Transfer(ctx, 60, int64(1), int64(2), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.Transfer(ctx, 50, int64(1), int64(2), time.Minute); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("short funds: %v", err)
	}
	// Expired before commit: rolled back at once.
	b.now = func() time.Time { return time.Now().UTC().Add(-time.Hour) }
	prep, err := b.prepare(ctx, 10, int64(1), int64(2))
	if err != nil {
		t.Fatal(err)
	}
	b.now = func() time.Time { return time.Now().UTC() }
	if err := b.commit(ctx, prep, time.Minute); !errors.Is(err, ErrExpired) {
		t.Fatalf("expired commit: %v", err)
	}
	got := balances(t, b)
	if got[1].Balance != 40 || got[2].Balance != 60 || len(got[1].Txns)+len(got[2].Txns) != 0 {
		t.Fatalf("balances %+v", got)
	}
	if n, _ := b.Transactions().CountDocuments(ctx, bson.D{}); n != 0 {
		t.Fatalf("%d transactions left", n)
	}
}

// TestTwoPhaseWithFailures runs 10,000 transfers (LODE_ACCEPTANCE=1; 2,000
// otherwise) among 100 accounts from 8 goroutines while a hook injects crashes between every pair of steps
// (including inside the recovery, which is simply run again until it
// completes: each run makes progress because every step is idempotent).
// The balance of every account must equal its starting balance plus the
// transfers that reached the commit step, the total must be conserved, and
// no transaction or txns entry may remain.
func TestTwoPhaseWithFailures(t *testing.T) {
	const (
		accounts = 100
		workers  = 8
		start    = 1000
	)
	transfers := 2_000
	if os.Getenv("LODE_ACCEPTANCE") != "" && !testing.Short() {
		transfers = 10_000
	}
	ctx := context.Background()
	b := openBank(t)
	if err := b.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < accounts; i++ {
		if err := b.Open(ctx, i, start); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu        sync.Mutex
		crashes   = map[Step]int{}
		committed = map[bson.ObjectID]bool{}
		rng       = rand.New(rand.NewPCG(7, 7))
		failing   = true
	)
	b.Hook = func(s Step, id bson.ObjectID) error {
		mu.Lock()
		defer mu.Unlock()
		if s == AfterCommit {
			committed[id] = true
		}
		if failing && rng.IntN(25) == 0 {
			crashes[s]++
			return errCrash
		}
		return nil
	}
	type result struct {
		src, dst, amt int64
		id            bson.ObjectID
	}
	results := make(chan result, transfers)
	var wg sync.WaitGroup
	startAt := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; i < transfers/workers; i++ {
				src, dst := r.Int64N(accounts), r.Int64N(accounts-1)
				if dst >= src {
					dst++
				}
				amt := 1 + r.Int64N(300)
				txn, err := b.prepare(ctx, amt, src, dst)
				if err == nil {
					err = b.commit(ctx, txn, time.Hour)
				}
				switch {
				case err == nil, errors.Is(err, errCrash), errors.Is(err, ErrInsufficientFunds):
				default:
					t.Error(err)
					return
				}
				results <- result{src, dst, amt, txn.ID}
			}
		}(w)
	}
	wg.Wait()
	close(results)
	t.Logf("%d transfers in %v; crashes per step: %v", transfers, time.Since(startAt), crashes)
	for _, s := range []Step{AfterInsert, AfterDebit, AfterCredit, AfterCommit, AfterRetireSrc, AfterRetireDst} {
		if crashes[s] == 0 {
			t.Errorf("no crash injected after step %s", s)
		}
	}
	time.Sleep(5 * time.Millisecond) // every transaction is now older than maxTxnTime=0
	for attempt := 0; ; attempt++ {
		st, err := b.Recover(ctx, 0)
		if err == nil {
			t.Logf("recover attempt %d: %+v", attempt, st)
			if st.Pending != 0 || st.Stale != nil {
				t.Fatalf("after recover: %+v", st)
			}
			break
		}
		if !errors.Is(err, errCrash) || attempt > 5000 {
			t.Fatal(err)
		}
	}
	failing = false
	want := map[int64]int64{}
	for i := int64(0); i < accounts; i++ {
		want[i] = start
	}
	for r := range results {
		if committed[r.id] {
			want[r.src] -= r.amt
			want[r.dst] += r.amt
		}
	}
	got := balances(t, b)
	var total int64
	for i := int64(0); i < accounts; i++ {
		a := got[i]
		total += a.Balance
		if a.Balance != want[i] {
			t.Errorf("account %d: balance %d, want %d", i, a.Balance, want[i])
		}
		if len(a.Txns) != 0 {
			t.Errorf("account %d keeps txns %v", i, a.Txns)
		}
	}
	if total != accounts*start {
		t.Errorf("total %d, want %d", total, accounts*start)
	}
	if n, err := b.Transactions().CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Errorf("%d transactions left (%v)", n, err)
	}
}

// unsupported reports whether err says the deployment has no transactions.
func unsupported(err error) bool {
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 20 || ce.Code == 59 || ce.Code == 115) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "Transaction numbers are only allowed") || strings.Contains(s, "not supported")
}

func TestTransferTx(t *testing.T) {
	ctx := context.Background()
	b := openBank(t)
	for id, bal := range map[int64]int64{1: 100, 2: 0} {
		if err := b.Open(ctx, id, bal); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.TransferTx(ctx, 60, int64(1), int64(2)); err != nil {
		if unsupported(err) {
			t.Fatalf("multi-document transactions are not supported by this server: %v", err)
		}
		t.Fatal(err)
	}
	if err := b.TransferTx(ctx, 50, int64(1), int64(2)); !errors.Is(err, ErrInsufficientFunds) {
		t.Fatalf("short funds: %v", err)
	}
	if err := b.TransferTx(ctx, 10, int64(1), int64(3)); err == nil {
		t.Fatal("transfer to a missing account succeeded")
	}
	got := balances(t, b)
	// The failed transfers must leave no partial debit.
	if got[1].Balance != 40 || got[2].Balance != 60 {
		t.Fatalf("balances %+v", got)
	}
	// Concurrent transactions conserve the total.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				src, dst := int64(1), int64(2)
				if (g+i)%2 == 0 {
					src, dst = dst, src
				}
				if err := b.TransferTx(ctx, 5, src, dst); err != nil && !errors.Is(err, ErrInsufficientFunds) {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	got = balances(t, b)
	if got[1].Balance+got[2].Balance != 100 {
		t.Fatalf("total %d, want 100", got[1].Balance+got[2].Balance)
	}
}
