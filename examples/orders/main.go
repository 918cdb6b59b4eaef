// Command orders updates line items of an order with a stored total (seed 003).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/orders"
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
	s := orders.New(db.Client().Database("shop").Collection("orders"))
	if err := s.Create(ctx, "11223", orders.Item{SKU: "123", Price: 55.11, Qty: 2}); err != nil {
		log.Fatal(err)
	}
	if err := s.IncreaseQty(ctx, "11223", "123", 55.11, 1); err != nil { // positional $inc
		log.Fatal(err)
	}
	if err := s.IncreaseQty(ctx, "11223", "456", 10, 2); err != nil { // $push fallback
		log.Fatal(err)
	}
	o, err := s.Get(ctx, "11223")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("items %+v total %.2f (sum %.2f)\n", o.Items, o.Total, o.Sum())
}
