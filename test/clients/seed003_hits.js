// Seed 003's "hits per path per day" aggregation in mongosh, on the same
// known data set as seed003_hits.py, plus the driver helpers built on
// aggregate: countDocuments and stats().
const assert = require('assert');
db = db.getSiblingDB('event_db_sh');
db.events.drop();
db.events.insertMany([
  { host: '127.0.0.1', time: ISODate('2000-10-10T20:55:36Z'), path: '/a' },
  { host: '127.0.0.2', time: ISODate('2000-10-10T23:59:59Z'), path: '/a' },
  { host: '127.0.0.1', time: ISODate('2000-10-10T00:00:00Z'), path: '/b' },
  { host: '127.0.0.3', time: ISODate('2000-10-11T00:00:00Z'), path: '/a' },
  { host: '127.0.0.1', time: ISODate('2000-09-30T23:59:59Z'), path: '/a' },
  { host: '127.0.0.1', time: ISODate('2000-11-01T00:00:00Z'), path: '/a' },
]);
const res = db.events.aggregate([
  { $match: { time: { $gte: ISODate('2000-10-01'), $lt: ISODate('2000-11-01') } } },
  { $project: { path: 1, date: { y: { $year: '$time' }, m: { $month: '$time' }, d: { $dayOfMonth: '$time' } } } },
  { $group: { _id: { p: '$path', y: '$date.y', m: '$date.m', d: '$date.d' }, hits: { $sum: 1 } } },
  { $sort: { '_id.p': 1, '_id.d': 1 } },
]).toArray();
assert.strictEqual(JSON.stringify(res.map(r => [r._id.p, r._id.y, r._id.m, r._id.d, r.hits])),
  JSON.stringify([['/a', 2000, 10, 10, 2], ['/a', 2000, 10, 11, 1], ['/b', 2000, 10, 10, 1]]));
assert.strictEqual(db.events.countDocuments(), 6);
assert.strictEqual(db.events.countDocuments({ path: '/a' }), 5);
const st = db.events.stats();
assert.strictEqual(st.count, 6);
assert.ok(st.nindexes >= 1, 'stats().nindexes');
print('seed003 hits (mongosh) OK');
