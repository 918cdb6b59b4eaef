package update

import "testing"

// TestSeed003 covers the updates of seed 003 (orders with line items and
// the two-phase account transfer).
func TestSeed003(t *testing.T) {
	const order = `{"_id": 42, "total": 500.0, "items": [{"sku": 123, "price": 55.11, "qty": 2}, {"sku": 456, "price": 30.0, "qty": 1}]}`
	const acct = `{"_id": "A", "balance": 1000, "txns": []}`
	const acctTxn = `{"_id": "A", "balance": 900, "txns": [{"$oid": "5f0000000000000000000001"}]}`
	runCases(t, []updCase{
		{name: "order qty via positional", doc: order, pos: 1,
			update: `{"$inc": {"total": 110.22, "items.$.qty": 2}}`,
			want:   `{"_id": 42, "total": 610.22, "items": [{"sku": 123, "price": 55.11, "qty": 4}, {"sku": 456, "price": 30.0, "qty": 1}]}`},
		{name: "order qty second item", doc: order, pos: 2,
			update: `{"$inc": {"total": 30.0, "items.$.qty": 1}}`,
			want:   `{"_id": 42, "total": 530.0, "items": [{"sku": 123, "price": 55.11, "qty": 2}, {"sku": 456, "price": 30.0, "qty": 2}]}`},
		{name: "order item removed, positional has no match", doc: order,
			update: `{"$inc": {"total": 110.22, "items.$.qty": 2}}`, code: 2,
			msg: `The positional operator did not find the match needed from the query.`},
		{name: "order push new item", doc: order,
			update: `{"$inc": {"total": 110.22}, "$push": {"items": {"sku": 789, "qty": 2, "price": 55.11}}}`,
			want:   `{"_id": 42, "total": 610.22, "items": [{"sku": 123, "price": 55.11, "qty": 2}, {"sku": 456, "price": 30.0, "qty": 1}, {"sku": 789, "qty": 2, "price": 55.11}]}`},
		{name: "debit and record txn", doc: acct,
			update: `{"$inc": {"balance": -100}, "$push": {"txns": {"$oid": "5f0000000000000000000001"}}}`,
			want:   acctTxn},
		{name: "retire txn by value", doc: acctTxn, update: `{"$pull": {"txns": {"$oid": "5f0000000000000000000001"}}}`,
			want: `{"_id": "A", "balance": 900, "txns": []}`},
		{name: "retire txn already gone", doc: `{"_id": "A", "balance": 900, "txns": []}`,
			update: `{"$pull": {"txns": {"$oid": "5f0000000000000000000001"}}}`,
			want:   `{"_id": "A", "balance": 900, "txns": []}`, noop: true},
		{name: "rollback with document condition", doc: acctTxn,
			update: `{"$inc": {"balance": 100}, "$pull": {"txns": {"_id": {"$oid": "5f0000000000000000000001"}}}}`,
			// txns holds plain ObjectIds, which a document condition never
			// matches, so only the balance changes.
			want: `{"_id": "A", "balance": 1000, "txns": [{"$oid": "5f0000000000000000000001"}]}`},
		{name: "rollback with embedded txn documents", doc: `{"_id": "A", "balance": 900, "txns": [{"_id": 7, "amt": 100}]}`,
			update: `{"$inc": {"balance": 100}, "$pull": {"txns": {"_id": 7}}}`,
			want:   `{"_id": "A", "balance": 1000, "txns": []}`},
		{name: "commit state", doc: `{"_id": 7, "state": "new", "amt": 100}`, update: `{"$set": {"state": "commit"}}`,
			want: `{"_id": 7, "state": "commit", "amt": 100}`},
		{name: "commit state twice is a no-op", doc: `{"_id": 7, "state": "commit", "amt": 100}`, update: `{"$set": {"state": "commit"}}`,
			want: `{"_id": 7, "state": "commit", "amt": 100}`, noop: true},
	})
}
