// mongosh's profiler helpers against lode serve: db.setProfilingLevel,
// db.getProfilingStatus, `show profile` and db.system.profile.find(), as
// the MongoDB 7.0 manual describes them.
const t = db.getSiblingDB("prof");
t.dropDatabase();
t.items.insertMany([...Array(50).keys()].map(i => ({ _id: i, cat: i % 5 })));

let st = t.getProfilingStatus();
if (st.was !== 0 || st.slowms !== 100 || st.sampleRate !== 1) throw new Error("initial status: " + EJSON.stringify(st));

// setProfilingLevel returns the previous settings.
let prev = t.setProfilingLevel(1, { slowms: 5 });
if (prev.was !== 0 || prev.slowms !== 100 || prev.ok !== 1) throw new Error("setProfilingLevel(1): " + EJSON.stringify(prev));
st = t.getProfilingStatus();
if (st.was !== 1 || st.slowms !== 5) throw new Error("status after level 1: " + EJSON.stringify(st));

prev = t.setProfilingLevel(2);
if (prev.was !== 1) throw new Error("setProfilingLevel(2): " + EJSON.stringify(prev));
t.items.find({ cat: 3 }).toArray();
t.items.updateOne({ _id: 4 }, { $set: { seen: true } });
t.setProfilingLevel(0);

// `show profile` reads system.profile; in a script it is
// db.system.profile.find() sorted newest first.
const shown = t.system.profile.find({ millis: { $gte: 0 } }).sort({ $natural: -1 }).toArray();
const q = shown.find(e => e.op === "query" && e.ns === "prof.items");
if (!q) throw new Error("no query entry: " + EJSON.stringify(shown));
if (q.nreturned !== 10 || q.docsExamined !== 50 || q.planSummary !== "COLLSCAN" || !(q.ts instanceof Date)) {
  throw new Error("query entry: " + EJSON.stringify(q));
}
const u = shown.find(e => e.op === "update");
if (!u || u.nModified !== 1 || u.planSummary !== "IDHACK") throw new Error("update entry: " + EJSON.stringify(u));
const capped = t.system.profile.isCapped();
if (!capped) throw new Error("system.profile is not capped");
print("profile entries " + shown.length);
