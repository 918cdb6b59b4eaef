// Pipeline-style updates, write hints and $-prefixed upsert fields through
// mongosh's own helpers (updateOne/updateMany/findOneAndUpdate/deleteMany).
const d = db.getSiblingDB("test");
function check(cond, what) { if (!cond) throw new Error(what); }

// "Updates with Aggregation Pipeline": $set with $$NOW, $replaceRoot.
const s = d.students;
s.insertMany([
  { _id: 1, test1: 95, test2: 92, test3: 90, modified: new Date("2019-01-01") },
  { _id: 3, test1: 95, test2: 110, modified: new Date("2019-01-01") },
]);
let r = s.updateOne({ _id: 3 }, [{ $set: { test3: 98, modified: "$$NOW" } }]);
check(r.matchedCount === 1 && r.modifiedCount === 1, "updateOne counts: " + EJSON.stringify(r));
let doc = s.findOne({ _id: 3 });
check(doc.test3 === 98 && doc.modified > new Date("2020-01-01"), "students 3: " + EJSON.stringify(doc));

r = s.updateMany({}, [
  { $replaceRoot: { newRoot: { $mergeObjects: [{ quiz1: 0, test3: 0 }, "$$ROOT"] } } },
  { $unset: "test2" },
]);
check(r.modifiedCount === 2, "updateMany counts: " + EJSON.stringify(r));
doc = s.findOne({ _id: 1 });
check(doc.quiz1 === 0 && doc.test3 === 90 && doc.test2 === undefined, "students 1: " + EJSON.stringify(doc));
check(Object.keys(doc)[0] === "_id", "_id not first: " + EJSON.stringify(doc));

// findOneAndUpdate with a pipeline, new document returned.
doc = s.findOneAndUpdate({ _id: 1 }, [{ $set: { total: { $add: ["$test1", "$test3"] } } }], { returnDocument: "after" });
check(doc.total === 185, "findOneAndUpdate: " + EJSON.stringify(doc));

// A stage that is not allowed in an update.
let err = null;
try { s.updateOne({ _id: 1 }, [{ $match: {} }]); } catch (e) { err = e; }
check(err && err.code === 72, "$match in update: " + err);

// Upsert may create a $-prefixed field; updating it later may not.
const ex = d.expenses;
r = ex.updateOne({ date: "2021-07-07" }, { $set: { phone: 25.17, $hotel: 320.10 } }, { upsert: true });
check(r.upsertedCount === 1, "upsert: " + EJSON.stringify(r));
check(ex.findOne({ date: "2021-07-07" }).$hotel === 320.10, "$hotel missing");
err = null;
try { ex.updateOne({ date: "2021-07-07" }, { $set: { $hotel: 1 } }); } catch (e) { err = e; }
check(err && err.code === 52, "$hotel update: " + err);

// A hinted delete sees only the sparse index's documents.
const h = d.hinted;
for (let i = 0; i < 10; i++) h.insertOne(i % 2 ? { _id: i } : { _id: i, s: i });
h.createIndex({ s: 1 }, { sparse: true });
r = h.deleteMany({}, { hint: "s_1" });
check(r.deletedCount === 5, "hinted deleteMany: " + EJSON.stringify(r));
err = null;
try { h.updateOne({}, { $set: { x: 1 } }, { hint: "nosuch" }); } catch (e) { err = e; }
check(err && err.code === 2, "unknown hint: " + err);
print("writes OK");
