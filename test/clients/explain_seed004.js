// Seed 004's explain checks through mongosh: ensureIndex, then
// find().sort().explain() and .explain("executionStats") print index scans
// of the compound index with no SORT stage. As in MongoDB 7.0, equality to
// null has two point intervals ([undefined, undefined] and [null, null]),
// so the sort is provided by merging one scan per point (SORT_MERGE).
const assert = require('assert');
var col = db.getSiblingDB("work").queue;
col.drop();
for (var i = 0; i < 50; i++) {
  col.insertOne({startTime: i % 2 ? null : new Date(), createdOn: new Date(1700000000000 + i * 1000), priority: i % 3});
}
col.ensureIndex({startTime: 1, createdOn: 1});
col.ensureIndex({startTime: 1, priority: -1, createdOn: 1});

function stages(p) {
  var out = [];
  while (p) {
    out.push(p.stage);
    p = p.inputStage || (p.inputStages && p.inputStages[0]);
  }
  return out;
}

var e = col.find({startTime: null}).sort({createdOn: 1}).explain();
printjson(e.queryPlanner.winningPlan);
var s = stages(e.queryPlanner.winningPlan);
assert.ok(s.indexOf("SORT") < 0, "no SORT: " + s);
assert.deepStrictEqual(s, ["FETCH", "SORT_MERGE", "IXSCAN"]);
var merge = e.queryPlanner.winningPlan.inputStage;
assert.strictEqual(JSON.stringify(merge.sortPattern), JSON.stringify({createdOn: 1}));
assert.strictEqual(merge.inputStages.length, 2);
var bounds = merge.inputStages.map(function (ix) {
  assert.strictEqual(ix.indexName, "startTime_1_createdOn_1");
  return ix.indexBounds.startTime;
});
assert.strictEqual(JSON.stringify(bounds), JSON.stringify([["[undefined, undefined]"], ["[null, null]"]]));

var x = col.find({startTime: null}).sort({priority: -1, createdOn: 1}).explain("executionStats");
printjson(x.executionStats);
assert.strictEqual(x.executionStats.nReturned, 25);
assert.strictEqual(x.executionStats.totalKeysExamined, 25);
var s2 = stages(x.queryPlanner.winningPlan);
assert.ok(s2.indexOf("SORT") < 0, "no SORT: " + s2);
assert.deepStrictEqual(s2, ["FETCH", "SORT_MERGE", "IXSCAN"]);
x.queryPlanner.winningPlan.inputStage.inputStages.forEach(function (ix) {
  assert.strictEqual(ix.indexName, "startTime_1_priority_-1_createdOn_1");
});
assert.strictEqual(x.executionStats.executionStages.stage, "FETCH");
print("explain seed004 OK");
