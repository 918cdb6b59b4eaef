// Aggregate explain through mongosh: db.c.explain(verbosity).aggregate()
// of seed 003's hits-per-path-per-day pipeline. At executionStats the
// $cursor stage reports the time index's executionStats and each later
// stage what it returned; at queryPlanner nothing runs.
const assert = require('assert');
db = db.getSiblingDB('explain_agg_sh');
db.events.drop();
const docs = [];
for (let i = 0; i < 3000; i++) {
  docs.push({ host: '127.0.0.' + (i % 7), time: new Date(Date.UTC(2000, 9, 1) + i * 864000), path: '/p' + (i % 5) });
}
db.events.insertMany(docs);
db.events.createIndex({ time: 1 });
const range = { $gte: ISODate('2000-10-05'), $lt: ISODate('2000-10-15') };
const pipeline = [
  { $match: { time: range } },
  { $project: { path: 1, year: { $year: '$time' }, month: { $month: '$time' }, day: { $dayOfMonth: '$time' } } },
  { $group: { _id: { p: '$path', y: '$year', m: '$month', d: '$day' }, hits: { $sum: 1 } } },
];
const matched = db.events.countDocuments({ time: range });
const groups = db.events.aggregate(pipeline).toArray().length;
assert.ok(matched > 0 && groups == 50, 'data: ' + matched + ' matched, ' + groups + ' groups');

const x = db.events.explain('executionStats').aggregate(pipeline);
assert.strictEqual(x.explainVersion, '1');
assert.strictEqual(x.stages.length, 3);
const cur = x.stages[0];
const es = cur.$cursor.executionStats;
assert.strictEqual(es.nReturned, matched);
assert.strictEqual(es.totalKeysExamined, matched);
assert.strictEqual(es.totalDocsExamined, matched);
assert.strictEqual(es.executionStages.stage, 'FETCH');
assert.strictEqual(es.executionStages.inputStage.indexName, 'time_1');
assert.strictEqual(Number(cur.nReturned), matched);
assert.ok('$project' in x.stages[1]);
assert.strictEqual(Number(x.stages[1].nReturned), matched);
const g = x.stages[2];
assert.ok('$group' in g);
assert.strictEqual(Number(g.nReturned), groups);
assert.strictEqual(g.usedDisk, false);
assert.ok('executionTimeMillisEstimate' in g);
assert.strictEqual(x.command.aggregate, 'events');
printjson(x.stages[2]);

const q = db.events.explain().aggregate(pipeline);
assert.ok(!('executionStats' in q.stages[0].$cursor), 'queryPlanner ran the query');
assert.ok(!('nReturned' in q.stages[2]), 'queryPlanner has figures');
assert.strictEqual(q.stages[0].$cursor.queryPlanner.winningPlan.inputStage.indexName, 'time_1');

// The whole pipeline in the query layer: find's explain.
const f = db.events.explain('executionStats').aggregate([{ $match: { time: range } }]);
assert.strictEqual(f.queryPlanner.optimizedPipeline, true);
assert.strictEqual(f.executionStats.nReturned, matched);
print('explain aggregate OK');
