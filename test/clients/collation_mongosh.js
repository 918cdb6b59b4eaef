// Collations through mongosh: the "Case-Insensitive Indexes" page's fruit
// example (an index with {locale: "en", strength: 2} serves queries with
// that collation) and a collection default collation.
const d = db.getSiblingDB("collation_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
d.fruit.createIndex({ type: 1 }, { collation: { locale: "en", strength: 2 } });
d.fruit.insertMany([{ type: "apple" }, { type: "Apple" }, { type: "APPLE" }]);
check(d.fruit.find({ type: "apple" }).toArray().length === 1, "no collation: one result");
check(d.fruit.find({ type: "apple" }).collation({ locale: "en", strength: 2 }).toArray().length === 3,
  "strength 2: three results");
check(d.fruit.find({ type: "apple" }).collation({ locale: "en", strength: 1 }).toArray().length === 3,
  "strength 1: three results");
const ex = d.fruit.find({ type: "apple" }).collation({ locale: "en", strength: 2 }).explain("executionStats");
const ixscan = JSON.stringify(ex.queryPlanner.winningPlan);
check(ixscan.includes("IXSCAN") && ex.executionStats.totalKeysExamined === 3, "explain: " + ixscan);
check(ex.queryPlanner.winningPlan.inputStage.collation.strength === 2, "IXSCAN collation");

d.createCollection("names", { collation: { locale: "fr_CA", strength: 2 } });
d.names.insertMany([{ n: "côte" }, { n: "Côte" }, { n: "cote" }]);
check(d.names.countDocuments({ n: "COTE" }) === 1, "accents count at strength 2");
check(d.names.countDocuments({ n: "CÔTE" }) === 2, "case ignored at strength 2");
check(d.getCollectionInfos({ name: "names" })[0].options.collation.locale === "fr_CA", "getCollectionInfos");
// A collection whose default collation sorts uppercase first.
d.createCollection("upper", { collation: { locale: "en", caseFirst: "upper" } });
d.upper.insertMany([{ w: "b" }, { w: "a" }, { w: "B" }, { w: "A" }]);
const ws = d.upper.find({}, { _id: 0, w: 1 }).sort({ w: 1 }).toArray().map((x) => x.w).join(",");
check(ws === "A,a,B,b", "caseFirst upper sort: " + ws);
check(d.getCollectionInfos({ name: "upper" })[0].options.collation.caseFirst === "upper", "caseFirst in getCollectionInfos");
print("collation OK");
