// Package transfer moves money between accounts, the "optimistic update
// with compensation" part of seed 003: a two-phase commit kept in the data
// (a transactions collection and a txns array on each account), plus
// TransferTx, the same transfer as one multi-document ACID transaction.
//
// Documents:
//
//	accounts:     {_id: 1, balance: 100, txns: [ObjectId(...), ...]}
//	transactions: {_id: ObjectId(...), state: "new"|"commit"|"rollback",
//	               ts: ISODate(...), amt: 55, src: 1, dst: 2}
//
// Transfer runs the seed's steps: insert the transaction ("new"); debit the
// source if its balance covers amt and push the transaction id on its txns;
// credit the destination and push the id; mark the transaction "commit" if
// it is still "new" and younger than maxTxnTime; retire it (pull the id
// from both accounts, remove the transaction). A committed transaction is
// always eventually retired and an expired new one is rolled back, by
// Recover, the seed's cleanup_transactions. Retire and rollback change an
// account only while the transaction id is still in its txns, and the
// debit and credit only while it is not, so every step is idempotent and
// can be repeated after a crash at any point.
//
// Fixes to the seed's code, which does not run as printed:
//   - prepare_transfer credits `dest`; the parameter is `destination`.
//   - Several calls use db.transaction; the collection is db.transactions.
//   - txns holds plain ObjectIds ($push: {txns: txn['_id']}), but retire and
//     rollback filter on 'txns._id' and rollback pulls {txns: {_id: id}},
//     which matches neither a plain ObjectId entry nor removes it. This
//     package stores plain ObjectIds and uses {txns: id} in filters and
//     {$pull: {txns: id}} consistently.
//   - retire_transaction reads txn['src'] but is passed only an id, and
//     cleanup_transactions projects only _id: the whole transaction is loaded.
//   - The cleanup's "move expired transactions to rollback" update names an
//     undefined txn_id; it is an update of every {state: "new", ts: {$lt:
//     cutoff}} transaction. rollback_transfer() is called without its txn.
//   - commit_transfer uses an undefined txnid; it is txn['_id'].
//   - When the commit fails because the transaction expired, Transfer moves
//     it to "rollback" and rolls it back at once (Recover would otherwise).
//   - Debit and credit carry {txns: {$ne: id}} so a repeated step is a no-op.
//
// Amounts are int64 (minor units such as cents) so balances are exact.
//
// Limits, as in the seed: Recover must run with a maxTxnTime longer than
// any transfer can take. A transfer stalled past maxTxnTime whose
// transaction is rolled back and removed could still apply a late credit;
// Recover reports account entries that name no transaction (Stale) so they
// can be repaired. TransferTx has no such window.
//
// Sharding: shard accounts on {_id: "hashed"} and transactions on
// {_id: "hashed"}; every step targets one document by _id (Recover's scans
// of transactions by state are scatter-gather, which is fine for a
// periodic job). TransferTx then becomes a distributed transaction.
package transfer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Transaction states.
const (
	StateNew      = "new"
	StateCommit   = "commit"
	StateRollback = "rollback"
)

// ErrInsufficientFunds reports that the source balance is below the amount.
var ErrInsufficientFunds = errors.New("transfer: insufficient funds")

// ErrExpired reports that a transfer could not commit within maxTxnTime;
// it has been (or will be, by Recover) rolled back.
var ErrExpired = errors.New("transfer: transaction expired before commit")

// Step names a point between two steps of the protocol, passed to the hook.
type Step string

// Steps, in protocol order.
const (
	AfterInsert     Step = "inserted"      // transaction document inserted
	AfterDebit      Step = "debited"       // source debited
	AfterCredit     Step = "credited"      // destination credited
	AfterCommit     Step = "committed"     // state set to commit
	AfterRetireSrc  Step = "retired-src"   // id pulled from source
	AfterRetireDst  Step = "retired-dst"   // id pulled from destination
	AfterRollbackTo Step = "rolled-back"   // state set to rollback
	AfterUndoSrc    Step = "undone-src"    // source refunded
	AfterUndoDst    Step = "undone-dst"    // destination debited back
	AfterAbortEmpty Step = "abort-no-fund" // insufficient funds, before removal
)

// Txn is a transaction document.
type Txn struct {
	ID    bson.ObjectID `bson:"_id"`
	State string        `bson:"state"`
	TS    time.Time     `bson:"ts"`
	Amt   int64         `bson:"amt"`
	Src   any           `bson:"src"`
	Dst   any           `bson:"dst"`
}

// Account is an account document.
type Account struct {
	ID      any             `bson:"_id"`
	Balance int64           `bson:"balance"`
	Txns    []bson.ObjectID `bson:"txns"`
}

// Bank runs transfers on an accounts and a transactions collection.
type Bank struct {
	accounts     *mongo.Collection
	transactions *mongo.Collection
	client       *mongo.Client
	// Hook, when set, is called after every step; a non-nil error stops
	// the operation there, as a crash would. Tests use it to inject
	// failures between every pair of steps.
	Hook func(Step, bson.ObjectID) error
	now  func() time.Time
}

// New returns a Bank on db's "accounts" and "transactions" collections.
func New(db *mongo.Database) *Bank {
	return &Bank{
		accounts:     db.Collection("accounts"),
		transactions: db.Collection("transactions"),
		client:       db.Client(),
		now:          func() time.Time { return time.Now().UTC() },
	}
}

// Accounts returns the accounts collection.
func (b *Bank) Accounts() *mongo.Collection { return b.accounts }

// Transactions returns the transactions collection.
func (b *Bank) Transactions() *mongo.Collection { return b.transactions }

// EnsureIndexes creates {state: 1, ts: 1} on transactions for Recover.
func (b *Bank) EnsureIndexes(ctx context.Context) error {
	_, err := b.transactions.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "state", Value: 1}, {Key: "ts", Value: 1}}})
	if err != nil {
		return fmt.Errorf("transfer: create index: %w", err)
	}
	return nil
}

// Open creates an account with a starting balance.
func (b *Bank) Open(ctx context.Context, id any, balance int64) error {
	_, err := b.accounts.InsertOne(ctx, Account{ID: id, Balance: balance, Txns: []bson.ObjectID{}})
	if err != nil {
		return fmt.Errorf("transfer: open account %v: %w", id, err)
	}
	return nil
}

func (b *Bank) step(s Step, id bson.ObjectID) error {
	if b.Hook == nil {
		return nil
	}
	if err := b.Hook(s, id); err != nil {
		return fmt.Errorf("transfer: after step %s of %s: %w", s, id.Hex(), err)
	}
	return nil
}

func byID(id any) bson.D { return bson.D{{Key: "_id", Value: id}} }

// Transfer moves amt from src to dst with the two-phase protocol: the
// seed's transfer(amt, source, destination, max_txn_time).
func (b *Bank) Transfer(ctx context.Context, amt int64, src, dst any, maxTxnTime time.Duration) error {
	txn, err := b.prepare(ctx, amt, src, dst)
	if err != nil {
		return err
	}
	return b.commit(ctx, txn, maxTxnTime)
}

func (b *Bank) prepare(ctx context.Context, amt int64, src, dst any) (Txn, error) {
	if amt <= 0 {
		return Txn{}, fmt.Errorf("transfer: amount %d must be positive", amt)
	}
	txn := Txn{ID: bson.NewObjectID(), State: StateNew, TS: b.now(), Amt: amt, Src: src, Dst: dst}
	if _, err := b.transactions.InsertOne(ctx, txn); err != nil {
		return txn, fmt.Errorf("transfer: insert transaction: %w", err)
	}
	if err := b.step(AfterInsert, txn.ID); err != nil {
		return txn, err
	}
	r, err := b.accounts.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: src}, {Key: "balance", Value: bson.D{{Key: "$gte", Value: amt}}}, {Key: "txns", Value: bson.D{{Key: "$ne", Value: txn.ID}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -amt}}}, {Key: "$push", Value: bson.D{{Key: "txns", Value: txn.ID}}}})
	if err != nil {
		return txn, fmt.Errorf("transfer: debit %v: %w", src, err)
	}
	if r.MatchedCount == 0 {
		if err := b.step(AfterAbortEmpty, txn.ID); err != nil {
			return txn, err
		}
		if _, err := b.transactions.DeleteOne(ctx, byID(txn.ID)); err != nil {
			return txn, fmt.Errorf("transfer: remove refused transaction: %w", err)
		}
		return txn, fmt.Errorf("%w: account %v", ErrInsufficientFunds, src)
	}
	if err := b.step(AfterDebit, txn.ID); err != nil {
		return txn, err
	}
	if _, err := b.accounts.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: dst}, {Key: "txns", Value: bson.D{{Key: "$ne", Value: txn.ID}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: amt}}}, {Key: "$push", Value: bson.D{{Key: "txns", Value: txn.ID}}}}); err != nil {
		return txn, fmt.Errorf("transfer: credit %v: %w", dst, err)
	}
	return txn, b.step(AfterCredit, txn.ID)
}

func (b *Bank) commit(ctx context.Context, txn Txn, maxTxnTime time.Duration) error {
	cutoff := b.now().Add(-maxTxnTime)
	r, err := b.transactions.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: txn.ID}, {Key: "state", Value: StateNew}, {Key: "ts", Value: bson.D{{Key: "$gt", Value: cutoff}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: StateCommit}}}})
	if err != nil {
		return fmt.Errorf("transfer: commit %s: %w", txn.ID.Hex(), err)
	}
	if r.MatchedCount == 0 {
		if err := b.startRollback(ctx, bson.D{{Key: "_id", Value: txn.ID}, {Key: "state", Value: StateNew}}); err != nil {
			return err
		}
		if err := b.rollback(ctx, txn); err != nil {
			return err
		}
		return fmt.Errorf("%w: %s", ErrExpired, txn.ID.Hex())
	}
	if err := b.step(AfterCommit, txn.ID); err != nil {
		return err
	}
	return b.retire(ctx, txn)
}

// retire is the seed's retire_transaction: idempotent.
func (b *Bank) retire(ctx context.Context, txn Txn) error {
	for _, acct := range []struct {
		id   any
		step Step
	}{{txn.Src, AfterRetireSrc}, {txn.Dst, AfterRetireDst}} {
		if _, err := b.accounts.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: acct.id}, {Key: "txns", Value: txn.ID}},
			bson.D{{Key: "$pull", Value: bson.D{{Key: "txns", Value: txn.ID}}}}); err != nil {
			return fmt.Errorf("transfer: retire %s from %v: %w", txn.ID.Hex(), acct.id, err)
		}
		if err := b.step(acct.step, txn.ID); err != nil {
			return err
		}
	}
	if _, err := b.transactions.DeleteOne(ctx, bson.D{{Key: "_id", Value: txn.ID}, {Key: "state", Value: StateCommit}}); err != nil {
		return fmt.Errorf("transfer: remove %s: %w", txn.ID.Hex(), err)
	}
	return nil
}

func (b *Bank) startRollback(ctx context.Context, filter bson.D) error {
	if _, err := b.transactions.UpdateMany(ctx, filter,
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: StateRollback}}}}); err != nil {
		return fmt.Errorf("transfer: mark rollback: %w", err)
	}
	return b.step(AfterRollbackTo, bson.ObjectID{})
}

// rollback is the seed's rollback_transfer: each account is changed only
// while it still lists the transaction, so it is idempotent.
func (b *Bank) rollback(ctx context.Context, txn Txn) error {
	for _, acct := range []struct {
		id   any
		amt  int64
		step Step
	}{{txn.Src, txn.Amt, AfterUndoSrc}, {txn.Dst, -txn.Amt, AfterUndoDst}} {
		if _, err := b.accounts.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: acct.id}, {Key: "txns", Value: txn.ID}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: acct.amt}}}, {Key: "$pull", Value: bson.D{{Key: "txns", Value: txn.ID}}}}); err != nil {
			return fmt.Errorf("transfer: roll back %s on %v: %w", txn.ID.Hex(), acct.id, err)
		}
		if err := b.step(acct.step, txn.ID); err != nil {
			return err
		}
	}
	if _, err := b.transactions.DeleteOne(ctx, bson.D{{Key: "_id", Value: txn.ID}, {Key: "state", Value: StateRollback}}); err != nil {
		return fmt.Errorf("transfer: remove %s: %w", txn.ID.Hex(), err)
	}
	return nil
}

// RecoverStats reports what Recover did.
type RecoverStats struct {
	Retired    int // committed transactions retired
	RolledBack int // expired or rolled-back transactions undone
	Pending    int // new transactions younger than maxTxnTime, left alone
	// Stale lists account txns entries naming no transaction document
	// (a transfer stalled past maxTxnTime); they are left for repair.
	Stale map[any][]bson.ObjectID
}

// Recover is the seed's cleanup_transactions: it retires every committed
// transaction, moves new transactions older than maxTxnTime to rollback,
// and rolls back every rollback transaction. It is idempotent; if it fails
// part way (or the hook stops it), run it again.
func (b *Bank) Recover(ctx context.Context, maxTxnTime time.Duration) (RecoverStats, error) {
	var st RecoverStats
	each := func(state string, fn func(Txn) error) error {
		cur, err := b.transactions.Find(ctx, bson.D{{Key: "state", Value: state}})
		if err != nil {
			return fmt.Errorf("transfer: find %s transactions: %w", state, err)
		}
		var txns []Txn
		if err := cur.All(ctx, &txns); err != nil {
			return fmt.Errorf("transfer: read %s transactions: %w", state, err)
		}
		for _, t := range txns {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	}
	if err := each(StateCommit, func(t Txn) error { st.Retired++; return b.retire(ctx, t) }); err != nil {
		return st, err
	}
	cutoff := b.now().Add(-maxTxnTime)
	if err := b.startRollback(ctx, bson.D{{Key: "state", Value: StateNew}, {Key: "ts", Value: bson.D{{Key: "$lt", Value: cutoff}}}}); err != nil {
		return st, err
	}
	if err := each(StateRollback, func(t Txn) error { st.RolledBack++; return b.rollback(ctx, t) }); err != nil {
		return st, err
	}
	n, err := b.transactions.CountDocuments(ctx, bson.D{{Key: "state", Value: StateNew}})
	if err != nil {
		return st, fmt.Errorf("transfer: count pending: %w", err)
	}
	st.Pending = int(n)
	st.Stale, err = b.stale(ctx)
	return st, err
}

// stale lists txns entries of accounts whose transaction is gone.
func (b *Bank) stale(ctx context.Context) (map[any][]bson.ObjectID, error) {
	cur, err := b.accounts.Find(ctx, bson.D{{Key: "txns.0", Value: bson.D{{Key: "$exists", Value: true}}}})
	if err != nil {
		return nil, fmt.Errorf("transfer: scan accounts: %w", err)
	}
	var accts []Account
	if err := cur.All(ctx, &accts); err != nil {
		return nil, fmt.Errorf("transfer: scan accounts: %w", err)
	}
	out := map[any][]bson.ObjectID{}
	for _, a := range accts {
		for _, id := range a.Txns {
			err := b.transactions.FindOne(ctx, byID(id), options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
			if errors.Is(err, mongo.ErrNoDocuments) {
				out[a.ID] = append(out[a.ID], id)
			} else if err != nil {
				return nil, fmt.Errorf("transfer: look up %s: %w", id.Hex(), err)
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// TransferTx moves amt from src to dst in one multi-document transaction
// (session.WithTransaction): the conditional debit and the credit commit
// together or not at all, so no transactions collection, txns arrays or
// recovery are needed. It needs a deployment that supports transactions.
func (b *Bank) TransferTx(ctx context.Context, amt int64, src, dst any) error {
	if amt <= 0 {
		return fmt.Errorf("transfer: amount %d must be positive", amt)
	}
	sess, err := b.client.StartSession()
	if err != nil {
		return fmt.Errorf("transfer: start session: %w", err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		r, err := b.accounts.UpdateOne(sc,
			bson.D{{Key: "_id", Value: src}, {Key: "balance", Value: bson.D{{Key: "$gte", Value: amt}}}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -amt}}}})
		if err != nil {
			return nil, err
		}
		if r.MatchedCount == 0 {
			return nil, fmt.Errorf("%w: account %v", ErrInsufficientFunds, src)
		}
		r, err = b.accounts.UpdateOne(sc, byID(dst), bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: amt}}}})
		if err != nil {
			return nil, err
		}
		if r.MatchedCount == 0 {
			return nil, fmt.Errorf("transfer: no account %v", dst)
		}
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("transfer: transaction %v -> %v: %w", src, dst, err)
	}
	return nil
}
