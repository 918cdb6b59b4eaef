// Seed 004 (a work queue with publishers and subscribers), run as written
// in the seed against Lode through mongosh, with assertions on what the
// seed says each step does.
const assert = require('assert');
// The seed uses the legacy shell's getSisterDB, which mongosh names
// getSiblingDB.
if (typeof db.getSisterDB !== 'function') {
  db.getSisterDB = function (name) { return db.getSiblingDB(name); };
}

db.getSisterDB("work").queue.drop();
db.getSisterDB("data").expire.drop();

// Example 2: insert a job.
var col = db.getSisterDB("work").queue;
col.insert({
    'startTime': null
  , 'endTime': null
  , 'createdOn': new Date()
  , 'priority': 1
  , 'payload': {
      'type': 'convertImage'
    , 'source': '/images/image.png'
    , 'output': '/images/image.jpg'
  }
});
// More jobs so FIFO and priority order differ.
sleep(5);
col.insert({'startTime': null, 'endTime': null, 'createdOn': new Date(), 'priority': 5, 'payload': {'type': 'urgent'}});
sleep(5);
col.insert({'startTime': null, 'endTime': null, 'createdOn': new Date(), 'priority': 1, 'payload': {'type': 'later'}});
assert.strictEqual(col.countDocuments({}), 3);

// Example 3: next FIFO job.
var col = db.getSisterDB("work").queue;
var job = col.findAndModify({
    query: {startTime: null}
  , sort: {createdOn: 1}
  , update: {$set: {startTime: new Date()}}
  , new: true
});
assert.strictEqual(job.payload.type, 'convertImage');
assert.ok(job.startTime instanceof Date, 'new: true returns the updated job');

// Example 4: highest priority job.
var col = db.getSisterDB("work").queue;
var job = col.findAndModify({
    query: {startTime: null}
  , sort: {priority: -1, createdOn: 1}
  , update: {$set: {startTime: new Date()}}
  , new: true
});
assert.strictEqual(job.payload.type, 'urgent');

// Example 5: finish the job.
var col = db.getSisterDB("work").queue;
col.update({_id: job._id}, {$set: {endTime: new Date()}});
assert.ok(col.findOne({_id: job._id}).endTime instanceof Date);

// Only one job is left unclaimed.
assert.strictEqual(col.countDocuments({startTime: null}), 1);

// Examples 6-9: the indexes, and the plans of the two queue queries.
var col = db.getSisterDB("work").queue;
col.ensureIndex({startTime: 1, createdOn: 1});
var col = db.getSisterDB("work").queue;
col.ensureIndex({startTime: 1, priority: -1, createdOn: 1});
var names = col.getIndexes().map(function (ix) { return ix.name; });
assert.ok(names.indexOf('startTime_1_createdOn_1') >= 0, names);
assert.ok(names.indexOf('startTime_1_priority_-1_createdOn_1') >= 0, names);

function usedIndex(plan, name) {
  return JSON.stringify(plan).indexOf('"indexName":"' + name + '"') >= 0;
}
var col = db.getSisterDB("work").queue;
var fifo = col.find({startTime: null}).sort({createdOn: 1}).explain();
var col = db.getSisterDB("work").queue;
var prio = col.find({startTime: null}).sort({priority: -1, createdOn: 1}).explain();
assert.ok(usedIndex(fifo.queryPlanner.winningPlan, 'startTime_1_createdOn_1'), JSON.stringify(fifo.queryPlanner));
assert.ok(usedIndex(prio.queryPlanner.winningPlan, 'startTime_1_priority_-1_createdOn_1'), JSON.stringify(prio.queryPlanner));

// Example 11: the TTL index, with the monitor waking every second.
var db = db.getSisterDB("data");
var numberOfSeconds = 60 * 60 * 24; // 60 sec * 60 min * 24 hours
db.expire.ensureIndex({ "endTime": 1}, {expireAfterSeconds: numberOfSeconds })
db.adminCommand({setParameter: 1, ttlMonitorSleepSecs: 1});
var dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
db.expire.insert({'startTime': dayAgo, 'endTime': dayAgo, 'createdOn': dayAgo, 'priority': 1, 'payload': {'type': 'old'}});
db.expire.insert({'startTime': new Date(), 'endTime': new Date(), 'createdOn': new Date(), 'priority': 1, 'payload': {'type': 'fresh'}});
var start = Date.now();
while (db.expire.countDocuments({'payload.type': 'old'}) > 0) {
  assert.ok(Date.now() - start < 3000, 'expired job still there after 3 s');
  sleep(100);
}
assert.strictEqual(db.expire.countDocuments({'payload.type': 'fresh'}), 1);
var ttl = db.serverStatus().metrics.ttl;
assert.ok(ttl.deletedDocuments >= 1 && ttl.passes >= 1, JSON.stringify(ttl));

print('seed004 OK explain');
