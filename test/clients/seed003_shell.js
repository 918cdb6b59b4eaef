// Seed 003, the shell parts ("Compound Documents"): the relational-style
// orders/order_items documents and their removal, then the embedded form.
// Changes from the seed: the "..." placeholders of the documents are
// filled with concrete values. The seed removes {'_id': '1123'} although
// the order is '11223' (a typo in the book); it is run as written and the
// assertions show its effect (nothing removed), then with the right id.
const assert = require('assert');
db = db.getSiblingDB('seed003');
db.orders.drop(); db.order_items.drop();

// "orders" document and "order_items" document
db.orders.insertOne({ _id: '11223', customer: 'c1' });
db.order_items.insertMany([
  { _id: ObjectId(), order_id: '11223', sku: '123', qty: 2 },
  { _id: ObjectId(), order_id: '11223', sku: '456', qty: 1 },
]);

// Two non-atomic removes, as printed.
db.orders.remove({'_id': '1123'})
db.order_items.remove({'order_id': '11223'})
assert.strictEqual(db.order_items.countDocuments({}), 0);
assert.strictEqual(db.orders.countDocuments({_id: '11223'}), 1, "the seed's '1123' does not match '11223'");
db.orders.remove({'_id': '11223'})
assert.strictEqual(db.orders.countDocuments({}), 0);

// Embedded items: deleting the order is one statement.
db.orders.insertOne({
  _id: '11223',
  total: 500.94,
  items: [
    { sku: '123', price: 55.11, qty: 2 },
    { sku: '789', price: 390.72, qty: 1 },
  ]
});
db.orders.remove({'_id': '1123'})
assert.strictEqual(db.orders.countDocuments({}), 1);
db.orders.remove({'_id': '11223'})
assert.strictEqual(db.orders.countDocuments({}), 0);

// The complex update (positional $inc) from the shell.
db.orders.insertOne({ _id: '11223', total: 110.22, items: [ { sku: '123', price: 55.11, qty: 2 } ] });
const r = db.orders.update({ '_id': '11223', 'items.sku': '123' }, { '$inc': { 'total': 55.11, 'items.$.qty': 1 } });
assert.strictEqual(r.matchedCount, 1);
const o = db.orders.findOne({ _id: '11223' });
assert.strictEqual(o.items[0].qty, 3);
assert.ok(Math.abs(o.total - 165.33) < 1e-9);

// Accounts with pending-transaction arrays.
db.accounts.drop();
db.accounts.insertMany([{ _id: 1, balance: 100, txns: [] }, { _id: 2, balance: 0, txns: [] }]);
const debit = db.accounts.updateOne({ _id: 1, balance: { $gte: 150 } }, { $inc: { balance: -150 } });
assert.strictEqual(debit.matchedCount, 0, 'conditional debit refuses short funds');
print('seed003 shell OK');
