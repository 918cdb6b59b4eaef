// Clustered collections through mongosh's helpers: createCollection with
// clusteredIndex, getIndexes, getCollectionInfos, finds by _id range, the
// CLUSTERED_IXSCAN of explain, and a secondary index.
const d = db.getSiblingDB("clustered_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
let r = d.createCollection("events", { clusteredIndex: { key: { _id: 1 }, unique: true, name: "events by id" } });
check(r.ok === 1, "createCollection: " + EJSON.stringify(r));
const docs = [];
for (let i = 99; i >= 0; i--) docs.push({ _id: i, kind: "k" + (i % 4) });
d.events.insertMany(docs);
check(d.events.find().limit(3).toArray().map((x) => x._id).join() === "0,1,2", "records in _id order");
check(d.events.find({ _id: { $gte: 10, $lt: 15 } }).toArray().map((x) => x._id).join() === "10,11,12,13,14", "_id range");
const ix = d.events.getIndexes();
check(ix.length === 1 && ix[0].clustered === true && ix[0].name === "events by id" && ix[0].unique === true,
  "getIndexes: " + EJSON.stringify(ix));
const info = d.getCollectionInfos({ name: "events" })[0];
check(info.options.clusteredIndex.name === "events by id" && info.options.clusteredIndex.v === 2 && info.idIndex === undefined,
  "getCollectionInfos: " + EJSON.stringify(info));
const plan = d.events.find({ _id: { $gt: 20, $lte: 30 } }).explain().queryPlanner.winningPlan;
check(plan.stage === "CLUSTERED_IXSCAN" && plan.minRecord === 20 && plan.maxRecord === 30,
  "explain: " + EJSON.stringify(plan));
d.events.createIndex({ kind: 1 });
check(d.events.countDocuments({ kind: "k1" }) === 25, "secondary index count");
let code = 0;
try { d.events.insertOne({ _id: 5 }); } catch (e) { code = e.code; }
check(code === 11000, "duplicate _id: " + code);
print("clustered mongosh OK");
