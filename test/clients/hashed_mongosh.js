// Hashed indexes through mongosh's helpers: createIndex({f: "hashed"}),
// getIndexes, equality finds through the hash points (explain's bounds
// are $toHashedIndexKey's hash), 1.5 kept out of {a: 1} although it
// hashes the same, and the array refusal (16766).
const d = db.getSiblingDB("hashed_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
d.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: 1.5 }, { _id: 3, a: NumberLong("1") }, { _id: 4, a: "k" }, { _id: 5 }]);
check(d.c.createIndex({ a: "hashed" }) === "a_hashed", "createIndex");
const ix = d.c.getIndexes().find((i) => i.name === "a_hashed");
check(ix && ix.key.a === "hashed", "getIndexes: " + EJSON.stringify(d.c.getIndexes()));
check(d.c.find({ a: 1 }).sort({ _id: 1 }).toArray().map((x) => x._id).join() === "1,3", "find {a: 1}");
check(d.c.find({ a: null }).toArray().map((x) => x._id).join() === "5", "find {a: null}");
const plan = d.c.find({ a: "k" }).explain().queryPlanner.winningPlan;
const want = d.c.aggregate([{ $match: { _id: 4 } }, { $project: { h: { $toHashedIndexKey: "$a" } } }]).toArray()[0].h;
check(plan.stage === "FETCH" && plan.inputStage.stage === "IXSCAN", "plan: " + EJSON.stringify(plan));
check(plan.inputStage.indexBounds.a[0] === "[" + want + ", " + want + "]", "bounds " + EJSON.stringify(plan.inputStage.indexBounds) + " want " + want);
let code = 0;
try { d.c.insertOne({ _id: 6, a: [1] }); } catch (e) { code = e.code; }
check(code === 16766, "array insert code " + code);
code = 0;
try { d.c.createIndex({ u: "hashed" }, { unique: true }); } catch (e) { code = e.code; }
check(code === 16764, "unique code " + code);
print("hashed mongosh OK");
