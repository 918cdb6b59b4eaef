package orders_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/orders"
)

// Changing an order's line items keeps its stored total equal to the sum
// of price times quantity.
func Example() {
	dir, err := os.MkdirTemp("", "lode-orders-example-")
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

	store := orders.New(db.Client().Database("shop").Collection("orders"))
	if err := store.Create(ctx, "11223", orders.Item{SKU: "123", Price: 55.11, Qty: 2}); err != nil {
		log.Fatal(err)
	}
	if err := store.IncreaseQty(ctx, "11223", "123", 55.11, 1); err != nil { // an existing line
		log.Fatal(err)
	}
	if err := store.IncreaseQty(ctx, "11223", "456", 10, 3); err != nil { // a new line
		log.Fatal(err)
	}
	o, err := store.Get(ctx, "11223")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d lines, total %.2f\n", len(o.Items), o.Total)
	// Output: 2 lines, total 195.33
}
