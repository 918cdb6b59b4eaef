package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/transfer"
)

// transferSetup opens `accounts` accounts with `balance` each in the
// scenario's database (transfer.Bank uses its fixed "accounts" and
// "transactions" collections there).
func transferSetup(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
	b := transfer.New(db)
	if p.Bool("drop", true) {
		for _, c := range []*mongo.Collection{b.Accounts(), b.Transactions()} {
			if err := c.Drop(ctx); err != nil {
				return fmt.Errorf("drop %s: %w", c.Name(), err)
			}
		}
	}
	n := p.Int("accounts", 100)
	bal := int64(p.Int("balance", 1_000_000))
	progress(0, n)
	for i := range n {
		if err := b.Open(ctx, i, bal); err != nil {
			return err
		}
		progress(i+1, n)
	}
	return b.EnsureIndexes(ctx)
}

// transferTeardown runs Recover, checks that the total balance is
// conserved, and drops both collections (--keep skips teardown).
func transferTeardown(ctx context.Context, db *mongo.Database, p sim.Params) error {
	b := transfer.New(db)
	if _, err := b.Recover(ctx, time.Minute); err != nil {
		return err
	}
	cur, err := b.Accounts().Aggregate(ctx, mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "total", Value: bson.D{{Key: "$sum", Value: "$balance"}}}}}},
	})
	if err != nil {
		return err
	}
	var sums []struct {
		Total int64 `bson:"total"`
	}
	if err := cur.All(ctx, &sums); err != nil {
		return err
	}
	want := int64(p.Int("accounts", 100)) * int64(p.Int("balance", 1_000_000))
	if len(sums) != 1 || sums[0].Total != want {
		return fmt.Errorf("transfer: total balance %v after the run, want %d", sums, want)
	}
	if err := b.Accounts().Drop(ctx); err != nil {
		return err
	}
	return b.Transactions().Drop(ctx)
}

// pair returns two distinct random accounts.
func pair(n int) (int, int) {
	src := rand.IntN(n)
	dst := (src + 1 + rand.IntN(n-1)) % n
	return src, dst
}

func init() {
	defaults := sim.Params{"db": "sim_transfer", "accounts": 100, "balance": 1_000_000, "maxAmount": 100, "maxTxnMs": 30000}
	sim.Register(&sim.Scenario{
		Name: "transfer_2pc",
		Seed: "003",
		Description: "Transfers between random accounts with the seed's two-phase commit kept in the data. Op: transfer.Bank.Transfer " +
			"(insert transaction, conditional debit, credit, commit, retire). Insufficient funds count as errors. Teardown runs Recover and checks the total balance.",
		Users:    200,
		Defaults: defaults,
		Setup:    transferSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			b := transfer.New(db)
			n, maxAmt := max(p.Int("accounts", 100), 2), max(p.Int("maxAmount", 100), 1)
			maxTxn := time.Duration(p.Int("maxTxnMs", 30000)) * time.Millisecond
			return func(ctx context.Context) error {
				src, dst := pair(n)
				return b.Transfer(ctx, int64(1+rand.IntN(maxAmt)), src, dst, maxTxn)
			}, nil
		},
		Teardown: transferTeardown,
	})
	sim.Register(&sim.Scenario{
		Name: "transfer_txn",
		Seed: "003",
		Description: "The same transfers as one multi-document transaction. Op: transfer.Bank.TransferTx " +
			"(session.WithTransaction: conditional debit and credit commit together). Teardown checks the total balance.",
		Users:    200,
		Defaults: defaults,
		Setup:    transferSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			b := transfer.New(db)
			n, maxAmt := max(p.Int("accounts", 100), 2), max(p.Int("maxAmount", 100), 1)
			return func(ctx context.Context) error {
				src, dst := pair(n)
				return b.TransferTx(ctx, int64(1+rand.IntN(maxAmt)), src, dst)
			}, nil
		},
		Teardown: transferTeardown,
	})
}
