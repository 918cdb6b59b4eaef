// Time series collections through mongosh's helpers: createCollection
// with timeseries and expireAfterSeconds, insertMany, createIndex and
// getIndexes in the collection's terms, getCollectionInfos, the buckets
// read directly, find, countDocuments, aggregate and explain through the
// collection, collMod and expiry by the TTL monitor.
const d = db.getSiblingDB("timeseries_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
let r = d.createCollection("weather", { timeseries: { timeField: "ts", metaField: "sensor", granularity: "hours" }, expireAfterSeconds: 3600 });
check(r.ok === 1, "createCollection: " + EJSON.stringify(r));
const info = d.getCollectionInfos({ name: "weather" })[0];
check(info.type === "timeseries" && info.options.timeseries.granularity === "hours" &&
  info.options.timeseries.bucketMaxSpanSeconds === 2592000 && Number(info.options.expireAfterSeconds) === 3600,
  "getCollectionInfos: " + EJSON.stringify(info));
const now = new Date();
const old = new Date(now.getTime() - 90 * 86400 * 1000);
const docs = [];
for (let i = 0; i < 60; i++) {
  docs.push({ ts: new Date((i < 30 ? old : now).getTime() + (i % 30) * 1000), sensor: { id: i % 2, type: "temp" }, temp: 10 + i });
}
r = d.weather.insertMany(docs);
check(Object.keys(r.insertedIds).length === 60, "insertMany: " + EJSON.stringify(r));
const buckets = d.getCollection("system.buckets.weather").find().toArray();
check(buckets.length === 4, "buckets: " + buckets.length);
const b = buckets.find((x) => x.meta.id === 0 && x.control.max.ts >= now);
check(b && b.control.version === 1 && Object.keys(b.data.temp).length === 15 && b.data.temp["0"] === 40 &&
  b.control.min.temp === 40 && b.control.max.temp === 68, "bucket: " + EJSON.stringify(b));
const zero = d.weather.find({ "sensor.id": 0 }).sort({ ts: 1 }).toArray();
check(zero.length === 30 && zero.every((x, i) => x.sensor.id === 0 && (i === 0 || x.ts >= zero[i - 1].ts)) &&
  zero[0].temp === 10 && zero[29].temp === 68 && zero[0]._id !== undefined, "find: " + EJSON.stringify(zero.slice(0, 2)));
check(d.weather.countDocuments({ temp: { $gte: 40 } }) === 30, "countDocuments");
const g = d.weather.aggregate([{ $group: { _id: "$sensor.id", n: { $sum: 1 }, max: { $max: "$temp" } } }, { $sort: { _id: 1 } }]).toArray();
check(EJSON.stringify(g) === EJSON.stringify([{ _id: 0, n: 30, max: 68 }, { _id: 1, n: 30, max: 69 }]), "aggregate: " + EJSON.stringify(g));
check(EJSON.stringify(d.weather.find({ ts: { $gte: now } }).explain()).includes("$_internalUnpackBucket"), "explain");
d.weather.createIndex({ "sensor.id": 1, ts: -1 });
const ix = d.weather.getIndexes().map((x) => x.name).sort();
check(ix.join() === "sensor.id_1_ts_-1,sensor_1_ts_1", "getIndexes: " + EJSON.stringify(d.weather.getIndexes()));
r = d.runCommand({ collMod: "weather", expireAfterSeconds: 60 });
check(r.ok === 1, "collMod: " + EJSON.stringify(r));
d.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: 1 });
const deadline = Date.now() + 20000;
while (d.getCollection("system.buckets.weather").countDocuments() > 2) {
  check(Date.now() < deadline, "TTL did not remove the old buckets");
  sleep(200);
}
check(d.weather.stats().timeseries.bucketCount === 2, "stats: " + EJSON.stringify(d.weather.stats().timeseries));
check(d.weather.countDocuments({}) === 30 && d.weather.countDocuments({ ts: { $lt: now } }) === 0, "after expiry");
check(d.weather.drop() === true, "drop");
check(d.getCollectionNames().length === 0 || d.getCollectionNames().join() === "system.views", "after drop: " + d.getCollectionNames());
print("timeseries mongosh OK");
