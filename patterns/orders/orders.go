// Package orders keeps orders as compound documents with embedded line
// items and a stored total, the "compound documents" and "complex updates"
// part of seed 003:
//
//	{_id: "11223", total: 500.94, items: [{sku: "123", price: 55.11, qty: 2}, ...]}
//
// Deleting an order deletes its items with it (one document), and every
// change of a line item updates the total in the same atomic single-document
// update, so total == sum(price*qty) always holds without transactions.
//
// IncreaseQty is the seed's increase_qty: a positional $inc of
// items.$.qty and of total when the line exists, and otherwise a $push of a
// new line guarded by items.sku $ne sku, repeated until one of the two
// matches (a concurrent remove or add can make each miss). Two fixes: the
// fallback increments total by price*qty (the seed has the literal 110.22
// of its example), and the loop stops with ErrNotFound when the order does
// not exist (the seed loops forever).
//
// Totals are float64 as in the seed; concurrent increments add in an
// arbitrary order, so with prices that are not exact binary fractions the
// total can differ from the recomputed sum by rounding (use integer cents or
// Decimal128 for money).
//
// Sharding: shard on {_id: "hashed"} (or {_id: 1}); every operation here
// targets one order by _id.
package orders

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// ErrNotFound reports that the order does not exist.
var ErrNotFound = errors.New("orders: order not found")

// Item is one line of an order.
type Item struct {
	SKU   string  `bson:"sku"`
	Price float64 `bson:"price"`
	Qty   int64   `bson:"qty"`
}

// Order is an order document.
type Order struct {
	ID    string  `bson:"_id"`
	Total float64 `bson:"total"`
	Items []Item  `bson:"items"`
}

// Sum returns sum(price*qty) over the items.
func (o Order) Sum() float64 {
	var s float64
	for _, it := range o.Items {
		s += it.Price * float64(it.Qty)
	}
	return s
}

// Store manages orders in one collection.
type Store struct {
	coll *mongo.Collection
}

// New returns a Store on coll.
func New(coll *mongo.Collection) *Store { return &Store{coll: coll} }

// Create inserts an order, computing its total from the items.
func (s *Store) Create(ctx context.Context, id string, items ...Item) error {
	if items == nil {
		items = []Item{}
	}
	o := Order{ID: id, Items: items}
	o.Total = o.Sum()
	if _, err := s.coll.InsertOne(ctx, o); err != nil {
		return fmt.Errorf("orders: create %s: %w", id, err)
	}
	return nil
}

// Get returns an order.
func (s *Store) Get(ctx context.Context, id string) (Order, error) {
	var o Order
	err := s.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&o)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return o, ErrNotFound
	}
	if err != nil {
		return o, fmt.Errorf("orders: get %s: %w", id, err)
	}
	return o, nil
}

// Delete removes an order with all its items in one operation.
func (s *Store) Delete(ctx context.Context, id string) error {
	r, err := s.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return fmt.Errorf("orders: delete %s: %w", id, err)
	}
	if r.DeletedCount == 0 {
		return ErrNotFound
	}
	return nil
}

// IncreaseQty adds qty of sku at price to the order: the seed's
// increase_qty. The existing line's stored price is kept; price is used
// for the total and for a new line.
func (s *Store) IncreaseQty(ctx context.Context, orderID, sku string, price float64, qty int64) error {
	totalUpdate := price * float64(qty)
	for {
		r, err := s.coll.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: orderID}, {Key: "items.sku", Value: sku}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "total", Value: totalUpdate}, {Key: "items.$.qty", Value: qty}}}})
		if err != nil {
			return fmt.Errorf("orders: increase %s of %s: %w", sku, orderID, err)
		}
		if r.MatchedCount > 0 {
			return nil
		}
		r, err = s.coll.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: orderID}, {Key: "items.sku", Value: bson.D{{Key: "$ne", Value: sku}}}},
			bson.D{
				{Key: "$inc", Value: bson.D{{Key: "total", Value: totalUpdate}}},
				{Key: "$push", Value: bson.D{{Key: "items", Value: Item{SKU: sku, Qty: qty, Price: price}}}},
			})
		if err != nil {
			return fmt.Errorf("orders: add %s to %s: %w", sku, orderID, err)
		}
		if r.MatchedCount > 0 {
			return nil
		}
		n, err := s.coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: orderID}})
		if err != nil {
			return fmt.Errorf("orders: check %s: %w", orderID, err)
		}
		if n == 0 {
			return ErrNotFound
		}
	}
}

// RemoveItem removes the line of sku from the order and subtracts its
// price*qty from the total, atomically: the $pull is conditional on the
// line still having the qty and price just read, and retried otherwise.
// It reports whether a line was removed.
func (s *Store) RemoveItem(ctx context.Context, orderID, sku string) (bool, error) {
	for {
		o, err := s.Get(ctx, orderID)
		if err != nil {
			return false, err
		}
		var line *Item
		for i := range o.Items {
			if o.Items[i].SKU == sku {
				line = &o.Items[i]
				break
			}
		}
		if line == nil {
			return false, nil
		}
		r, err := s.coll.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: orderID}, {Key: "items", Value: bson.D{{Key: "$elemMatch", Value: bson.D{
				{Key: "sku", Value: sku}, {Key: "qty", Value: line.Qty}, {Key: "price", Value: line.Price}}}}}},
			bson.D{
				{Key: "$inc", Value: bson.D{{Key: "total", Value: -line.Price * float64(line.Qty)}}},
				{Key: "$pull", Value: bson.D{{Key: "items", Value: bson.D{{Key: "sku", Value: sku}}}}},
			})
		if err != nil {
			return false, fmt.Errorf("orders: remove %s from %s: %w", sku, orderID, err)
		}
		if r.MatchedCount > 0 {
			return true, nil
		}
	}
}
