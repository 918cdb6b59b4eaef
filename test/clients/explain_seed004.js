// Seed 004's explain checks through mongosh: ensureIndex, then
// find().sort().explain() and .explain("executionStats") print an IXSCAN
// on the compound index with no SORT stage.
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
    p = p.inputStage;
  }
  return out;
}

var e = col.find({startTime: null}).sort({createdOn: 1}).explain();
printjson(e.queryPlanner.winningPlan);
var s = stages(e.queryPlanner.winningPlan);
assert.ok(s.indexOf("SORT") < 0, "no SORT: " + s);
assert.strictEqual(s[s.length - 1], "IXSCAN");
var ix = e.queryPlanner.winningPlan.inputStage;
assert.strictEqual(ix.indexName, "startTime_1_createdOn_1");
assert.strictEqual(JSON.stringify(ix.indexBounds.startTime), JSON.stringify(["[null, null]"]));

var x = col.find({startTime: null}).sort({priority: -1, createdOn: 1}).explain("executionStats");
printjson(x.executionStats);
assert.strictEqual(x.executionStats.nReturned, 25);
assert.strictEqual(x.executionStats.totalKeysExamined, 25);
var s2 = stages(x.queryPlanner.winningPlan);
assert.ok(s2.indexOf("SORT") < 0, "no SORT: " + s2);
assert.strictEqual(x.queryPlanner.winningPlan.inputStage.indexName, "startTime_1_priority_-1_createdOn_1");
assert.strictEqual(x.executionStats.executionStages.stage, "FETCH");
print("explain seed004 OK");
