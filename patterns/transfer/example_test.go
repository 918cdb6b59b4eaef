package transfer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/transfer"
)

// Money moves by the two-phase commit kept in the data (Transfer) or by
// one multi-document transaction (TransferTx).
func Example() {
	dir, err := os.MkdirTemp("", "lode-transfer-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := lode.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()

	bank := transfer.New(db.Client().Database("bank"))
	if err := bank.EnsureIndexes(ctx); err != nil {
		log.Fatal(err)
	}
	for id, balance := range map[int]int64{1: 100, 2: 0} {
		if err := bank.Open(ctx, id, balance); err != nil {
			log.Fatal(err)
		}
	}
	if err := bank.Transfer(ctx, 55, 1, 2, time.Minute); err != nil {
		log.Fatal(err)
	}
	if err := bank.TransferTx(ctx, 20, 2, 1); err != nil {
		log.Fatal(err)
	}
	for _, id := range []int{1, 2} {
		var a transfer.Account
		if err := bank.Accounts().FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&a); err != nil {
			log.Fatal(err)
		}
		fmt.Println("account", id, "balance", a.Balance)
	}
	// Output:
	// account 1 balance 65
	// account 2 balance 35
}
