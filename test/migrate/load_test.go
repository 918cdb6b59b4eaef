package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/patterns/eventlog"
	"github.com/lodedb/lode/patterns/queue"
	"github.com/lodedb/lode/patterns/transfer"
)

const (
	accounts       = 20
	openingBalance = 1000
)

// load is the write load of the pattern packages on a source: two-phase
// and transactional transfers between accounts, queue publishers and
// consumers, event inserts. It records every acknowledged write. A
// worker stops at UserWritesBlocked (the cutover); with tolerant, it
// waits out other errors (a killed server), else it reports them.
type load struct {
	t        *testing.T
	stop     chan struct{}
	wg       sync.WaitGroup
	tolerant bool

	mu        sync.Mutex
	events    map[string]bool        // acknowledged events, by their user field
	published map[bson.ObjectID]bool // acknowledged publishes
	finished  map[bson.ObjectID]bool // acknowledged finishes
	transfers atomic.Int64
	blocked   atomic.Int64 // workers stopped by UserWritesBlocked
}

// seedLoad opens the accounts and the queue's indexes on c.
func seedLoad(t *testing.T, ctx context.Context, c *mongo.Client) {
	t.Helper()
	bank := transfer.New(c.Database("bank"))
	if err := bank.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range accounts {
		if err := bank.Open(ctx, i, openingBalance); err != nil {
			t.Fatal(err)
		}
	}
	if err := queue.New(c.Database("work").Collection("jobs")).EnsureIndexes(ctx, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := eventlog.New(c.Database("web").Collection("events")).EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
}

func startLoad(t *testing.T, c *mongo.Client, tolerant bool) *load {
	l := &load{t: t, stop: make(chan struct{}), tolerant: tolerant,
		events: map[string]bool{}, published: map[bson.ObjectID]bool{}, finished: map[bson.ObjectID]bool{}}
	bank := transfer.New(c.Database("bank"))
	q := queue.New(c.Database("work").Collection("jobs"))
	log := eventlog.New(c.Database("web").Collection("events"))
	ctx := context.Background()
	durability := eventlog.W1
	if tolerant { // servers are killed: only journaled writes must survive
		durability = eventlog.Journaled
	}
	l.worker(10*time.Millisecond, func(i int) error { // two-phase transfers
		a, b := rand.IntN(accounts), rand.IntN(accounts)
		if a == b {
			return nil
		}
		err := bank.Transfer(ctx, int64(1+rand.IntN(50)), a, b, time.Minute)
		if err == nil {
			l.transfers.Add(1)
		}
		return err
	})
	l.worker(10*time.Millisecond, func(i int) error { // transactional transfers
		a, b := rand.IntN(accounts), rand.IntN(accounts)
		if a == b {
			return nil
		}
		err := bank.TransferTx(ctx, int64(1+rand.IntN(50)), a, b)
		if err == nil {
			l.transfers.Add(1)
		}
		return err
	})
	for p := range 2 { // publishers: 1000 jobs/s together, seed 004's rate
		l.worker(2*time.Millisecond, func(i int) error {
			id, err := q.Publish(ctx, bson.D{{Key: "p", Value: p}, {Key: "i", Value: i}}, i%5)
			if err == nil {
				l.mu.Lock()
				l.published[id] = true
				l.mu.Unlock()
			}
			return err
		})
	}
	l.worker(3*time.Millisecond, func(i int) error { // a consumer: 300 jobs/s
		j, err := q.NextFIFO(ctx)
		if errors.Is(err, queue.ErrEmpty) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := q.Finish(ctx, j.ID); err != nil {
			return err
		}
		l.mu.Lock()
		l.finished[j.ID] = true
		l.mu.Unlock()
		return nil
	})
	for w := range 2 { // event inserts, in batches of 20: 1000 events/s
		l.worker(40*time.Millisecond, func(i int) error {
			var es []eventlog.Event
			for k := range 20 {
				es = append(es, eventlog.Event{Host: "10.0.0.1", User: fmt.Sprintf("w%d-%d-%d", w, i, k), Time: time.Now().UTC(),
					Path: fmt.Sprintf("/p/%d", k), Status: 200, Size: int64(k)})
			}
			n, err := log.InsertMany(ctx, eventlog.Events(es), durability, true)
			l.mu.Lock()
			for _, e := range es[:n] {
				l.events[e.User] = true
			}
			l.mu.Unlock()
			return err
		})
	}
	return l
}

// worker runs step every interval (a paced load, as seed 004's
// simulation is) until stopped or blocked.
func (l *load) worker(every time.Duration, step func(i int) error) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			err := step(i)
			switch {
			case err == nil, errors.Is(err, transfer.ErrInsufficientFunds), isWriteConflict(err):
				// A two-phase step meeting a TransferTx's uncommitted
				// write fails with WriteConflict; Recover undoes it.
			case isBlocked(err):
				l.blocked.Add(1)
				return
			case l.tolerant:
				time.Sleep(50 * time.Millisecond)
			default:
				l.t.Errorf("load: %v", err)
				return
			}
		}
	}()
}

func isWriteConflict(err error) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(112)
}

func isBlocked(err error) bool {
	var se mongo.ServerError
	return errors.As(err, &se) && se.HasErrorCode(372)
}

func (l *load) halt() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
}

// checkConserved checks on the target that every acknowledged write is
// there once, and, after recovering the two-phase transfers left half
// done (as the application would on its new deployment), that the
// balances still add up.
func (l *load) checkConserved(t *testing.T, ctx context.Context, dc *mongo.Client) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	events := dc.Database("web").Collection("events")
	cur, err := events.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for cur.Next(ctx) {
		u, _ := cur.Current.Lookup("user").StringValueOK()
		seen[u]++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	for u := range l.events {
		if seen[u] != 1 {
			t.Errorf("acknowledged event %s is on the target %d times", u, seen[u])
		}
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("event %s is on the target %d times", u, n)
		}
	}
	jobs := dc.Database("work").Collection("jobs")
	for id := range l.published {
		var j queue.Job
		if err := jobs.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&j); err != nil {
			t.Errorf("acknowledged job %s: %v", id.Hex(), err)
			continue
		}
		if l.finished[id] && j.EndTime == nil {
			t.Errorf("job %s was finished on the source but not on the target", id.Hex())
		}
	}
	bank := transfer.New(dc.Database("bank"))
	if _, err := bank.Recover(ctx, 0); err != nil {
		t.Fatalf("recover the transfers on the target: %v", err)
	}
	cur, err = bank.Accounts().Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var accts []transfer.Account
	if err := cur.All(ctx, &accts); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, a := range accts {
		sum += a.Balance
		if len(a.Txns) > 0 {
			t.Errorf("account %v still has pending transactions %v after Recover", a.ID, a.Txns)
		}
	}
	if len(accts) != accounts || sum != accounts*openingBalance {
		t.Errorf("%d accounts holding %d on the target, want %d holding %d", len(accts), sum, accounts, accounts*openingBalance)
	}
	t.Logf("load: %d transfers, %d jobs published, %d finished, %d events", l.transfers.Load(), len(l.published), len(l.finished), len(l.events))
}
