// Seed 000 (most recent n documents in categories), run as written in the
// seed against Lode through mongosh, on a small data set: 20,000 documents
// in 100 categories with ts = 0..19999 (the seed's Python fill script,
// translated to the shell, with fewer documents so the test stays short).
// Changes from the seed: the snippets reference "documents" with field
// "category" and the algorithm uses "docs" with field "cat" (as the seed
// does); the indexes the hints name are created first.
const assert = require('assert');
db = db.getSiblingDB('seed000');

// --- fill (the seed's Python script, 20,000 instead of 5,000,000) ---
db.docs.drop();
db.documents.drop();
const names = ["Business", "Politics", "Sports", "Technology", "Science"];
let docs = [], cdocs = [];
let seedRand = 12345;
function rand(n) { seedRand = (seedRand * 1103515245 + 12345) % 2147483648; return seedRand % n; }
for (let i = 0; i < 20000; i++) {
  docs.push({cat: rand(100), ts: i});
  cdocs.push({category: names[rand(names.length)], ts: i});
  if (docs.length === 1000) {
    db.docs.insertMany(docs); db.documents.insertMany(cdocs);
    docs = []; cdocs = [];
  }
}
db.docs.createIndex({cat: 1, ts: -1});
db.documents.createIndex({category: 1, ts: -1});
assert.strictEqual(db.docs.countDocuments({}), 20000);

// --- "Categories" ---
var result = db.documents .find({category: {"$in": ["Business", "Politics", "Sports"]}})
const inThree = result.toArray();
assert.ok(inThree.length > 0 && inThree.every(d => ["Business", "Politics", "Sports"].includes(d.category)));

// --- "Recency": sort + limit over $in (SORT_MERGE) ---
var n = 10000; var result = db.documents .find({category: {"$in": ["Business", "Politics", "Sports"]}}) .sort({ts:-1}) .limit(n)
const sorted = result.toArray();
assert.strictEqual(sorted.length, n);
for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1].ts > sorted[i].ts, 'sorted by ts desc');
const expectTop = inThree.map(d => d.ts).sort((a, b) => b - a).slice(0, n);
assert.strictEqual(JSON.stringify(sorted.map(d => d.ts)), JSON.stringify(expectTop));

// --- "Can we do better?": range + hint instead of sort ---
var total = db.documents.count();
var k = 10000;
var results = db.documents
.find({
category: {"$in": ["Business", "Politics", "Sports"]},
ts: {"$gt": total-k}})
.hint({category: 1, ts: -1})
const r = results.toArray();
assert.strictEqual(total, 20000);
assert.strictEqual(r.length, inThree.filter(d => d.ts > total - k).length);
assert.ok(r.length <= k);

// --- Implementation (verbatim) ---
function findRecent(collection, query, min, max) {
var total = db[collection].count();
var step, marker, cursor, c, last_marker, qc;
step = min;
marker = total;
c = 0;
while (c < min) {
last_marker = marker;
marker = marker - step;
query['ts'] = {'$gt': marker};
cursor = db[collection].find(query).hint({cat:1, ts:-1});
c = cursor.count();
step = step*2;
}
if (c < max) {
return cursor;
}
step = (last_marker - marker) / 2;
marker = marker + step;
while (true) {
query['ts'] = {'$gt': marker};
cursor = db[collection].find(query).hint({cat:1, ts:-1});
c = cursor.count();
step = step/2;
if (c > max) {
marker = marker + step;
} else if (c < min) {
marker = marker - step;
} else {
return cursor;
}
}
}

const cats = [1, 55, 88];
const all = db.docs.find({cat: {$in: cats}}).toArray();
for (const [min, max] of [[5, 5], [100, 110], [500, 550]]) {
  const cur = findRecent('docs', {cat: {$in: cats}}, min, max);
  const got = cur.toArray();
  assert.ok(got.length >= min && got.length <= max, `findRecent(${min}, ${max}) returned ${got.length}`);
  const oldest = Math.min(...got.map(d => d.ts));
  const ids = new Set(got.map(d => String(d._id)));
  for (const d of all) {
    if (!ids.has(String(d._id))) assert.ok(d.ts < oldest, `omitted ts ${d.ts} newer than returned ${oldest}`);
  }
}
print('seed000 OK');
