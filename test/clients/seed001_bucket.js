// Seed 001 (bucket pattern for pagination), run as written in the seed
// against Lode through mongosh. Each step asserts the result the seed shows.
const assert = require('assert');
function same(actual, expected, what) {
  const a = EJSON.stringify(actual, { relaxed: false });
  const e = EJSON.stringify(expected, { relaxed: false });
  if (a !== e) {
    throw new Error(what + ': got\n' + a + '\nwant\n' + e);
  }
}

db = db.getSiblingDB('seed001');

// The seed's initial schema, before the bucket pattern: one document per
// trade.
db.trades.insertMany(
[
{
"ticker" : "MDB",
"customerId": 123,
"type" : "buy",
"quantity" : 419,
"date" : ISODate("2023-10-26T15:47:03.434Z")
},
{
"ticker" : "MDB",
"customerId": 123,
"type" : "sell",
"quantity" : 29,
"date" : ISODate("2023-10-30T09:32:57.765Z")
},
{
"ticker" : "GOOG",
"customerId": 456,
"type" : "buy",
"quantity" : 50,
"date" : ISODate("2023-10-31T11:16:02.120Z")
}
]
)
assert.strictEqual(db.trades.countDocuments({}), 3);
assert.strictEqual(db.trades.countDocuments({ customerId: 123 }), 2);

// The bucket pattern: the seed drops the collection and reorganizes it.
db.trades.drop()

db.trades.insertMany(
 [
 {
 "_id": "123_1698349623",
 "customerId": 123,
 "count": 2,
 "history": [
 {
 "type": "buy",
 "ticker": "MDB",
 "qty": 419,
 "date": ISODate("2023-10-26T15:47:03.434Z")
 },
 {
 "type": "sell",
 "ticker": "MDB",
 "qty": 29,
 "date": ISODate("2023-10-30T09:32:57.765Z")
 }
 ]
 },
 {
 "_id": "456_1698765362",
 "customerId": 456,
 "count": 1,
 "history": [
 {
 "type" : "buy",
 "ticker" : "GOOG",
 "quantity" : 50,
 "date" : ISODate("2023-10-31T11:16:02.120Z")
 }
 ]
 },
 ]
)

// First page for customer 123.
const page1 = db.trades.find( { "_id": /^123_/ } ).sort( { _id: 1 } ).limit(1).toArray();
assert.strictEqual(page1.length, 1);
assert.strictEqual(page1[0]._id, '123_1698349623');
assert.strictEqual(page1[0].count, 2);

// Page 10 is empty: the sample data only has one page.
const page10 = db.trades.find( { "_id": /^123_/ } ).sort( { _id: 1 } ).skip(9).limit(1).toArray();
assert.strictEqual(page10.length, 0);

const res = db.trades.updateOne( { "_id": /^123_/, "count": { $lt: 10 } },
{
"$push": {
"history": {
"type": "buy",
"ticker": "MSFT",
"qty": 42,
"date": ISODate("2023-11-02T11:43:10")
}
},
"$inc": { "count": 1 },
"$setOnInsert": { "_id": "123_1698939791", "customerId": 123 }
},
{ upsert: true }
)
assert.strictEqual(res.matchedCount, 1);
assert.strictEqual(res.modifiedCount, 1);
assert.strictEqual(res.upsertedCount, 0);

// The collection as the seed shows it after the update.
same(db.trades.find().sort({ _id: 1 }).toArray(), [
{
_id: '123_1698349623',
customerId: 123,
count: 3,
history: [
{ type: 'buy', ticker: 'MDB', qty: 419, date: ISODate("2023-10-26T15:47:03.434Z") },
{ type: 'sell', ticker: 'MDB', qty: 29, date: ISODate("2023-10-30T09:32:57.765Z") },
{ type: 'buy', ticker: 'MSFT', qty: 42, date: ISODate("2023-11-02T11:43:10.000Z") }
]
},
{
_id: '456_1698765362',
customerId: 456,
count: 1,
history: [
{ type: 'buy', ticker: 'GOOG', quantity: 50, date: ISODate("2023-10-31T11:16:02.120Z") }
]
}
], 'collection after updateOne');

// Fill the first bucket to 10 trades, then the next push must open a new
// bucket through the upsert, with the _id from $setOnInsert.
for (let i = 0; i < 7; i++) {
  db.trades.updateOne({ "_id": /^123_/, "count": { $lt: 10 } },
    { "$push": { "history": { "type": "buy", "ticker": "X" + i, "qty": i } },
      "$inc": { "count": 1 },
      "$setOnInsert": { "_id": "123_1698939791", "customerId": 123 } },
    { upsert: true });
}
assert.strictEqual(db.trades.findOne({ _id: '123_1698349623' }).count, 10);
const up = db.trades.updateOne({ "_id": /^123_/, "count": { $lt: 10 } },
  { "$push": { "history": { "type": "sell", "ticker": "NEW", "qty": 1 } },
    "$inc": { "count": 1 },
    "$setOnInsert": { "_id": "123_1699000000", "customerId": 123 } },
  { upsert: true });
assert.strictEqual(up.upsertedCount, 1);
assert.strictEqual(up.insertedId, '123_1699000000'); // mongosh reports the upserted _id as insertedId
same(db.trades.findOne({ _id: '123_1699000000' }),
  // MongoDB applies update operators to new fields in field-name order,
  // after _id: count, customerId, history.
  { _id: '123_1699000000', count: 1, customerId: 123, history: [ { type: 'sell', ticker: 'NEW', qty: 1 } ] },
  'upserted bucket');
// Page 2 of customer 123 is the new bucket.
assert.strictEqual(db.trades.find({ "_id": /^123_/ }).sort({ _id: 1 }).skip(1).limit(1).toArray()[0]._id, '123_1699000000');
print('seed001 OK');
