// Command transfer moves money with the two-phase protocol and recovers a crashed transfer (seed 003).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/transfer"
)

func main() {
	dir, err := os.MkdirTemp("", "lode-example-")
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
	for id, bal := range map[int]int64{1: 100, 2: 0} {
		if err := bank.Open(ctx, id, bal); err != nil {
			log.Fatal(err)
		}
	}
	if err := bank.Transfer(ctx, 55, 1, 2, time.Minute); err != nil {
		log.Fatal(err)
	}
	// Crash after the debit: the money is in flight until Recover.
	crash := errors.New("crash")
	bank.Hook = func(s transfer.Step, _ bson.ObjectID) error {
		if s == transfer.AfterDebit {
			return crash
		}
		return nil
	}
	err = bank.Transfer(ctx, 20, 1, 2, time.Minute)
	fmt.Println("interrupted:", err) // err already reads "transfer: after step ..."
	bank.Hook = nil
	time.Sleep(10 * time.Millisecond)
	st, err := bank.Recover(ctx, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("recover: %+v\n", st)
	if err := bank.TransferTx(ctx, 5, 2, 1); err != nil {
		fmt.Println("TransferTx:", err)
	}
	cur, err := bank.Accounts().Find(ctx, bson.D{})
	if err != nil {
		log.Fatal(err)
	}
	var accts []bson.M
	if err := cur.All(ctx, &accts); err != nil {
		log.Fatal(err)
	}
	fmt.Println("accounts:", accts)
}
