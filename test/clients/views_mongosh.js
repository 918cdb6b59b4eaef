// Views through mongosh's own helpers: db.createView, find/count/distinct/
// aggregate through the view, getCollectionInfos, the refused writes (166),
// and a view on a view.
const d = db.getSiblingDB("views_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
d.orders.insertMany([
  { _id: 1, item: "a", qty: 5, status: "A" },
  { _id: 2, item: "b", qty: 15, status: "A" },
  { _id: 3, item: "a", qty: 25, status: "D" },
  { _id: 4, item: "c", qty: 35, status: "A" },
]);
let r = d.createView("active", "orders", [{ $match: { status: "A" } }, { $project: { status: 0 } }]);
check(r.ok === 1, "createView: " + EJSON.stringify(r));
check(d.active.countDocuments({}) === 3, "countDocuments");
check(d.active.find({ qty: { $gt: 10 } }).sort({ qty: -1 }).toArray().map((x) => x._id).join() === "4,2", "find sort");
check(d.active.findOne({ _id: 1 }).status === undefined, "projection of the view");
check(d.active.distinct("item").sort().join() === "a,b,c", "distinct");
const sum = d.active.aggregate([{ $group: { _id: null, q: { $sum: "$qty" } } }]).toArray();
check(sum[0].q === 55, "aggregate: " + EJSON.stringify(sum));

d.createView("bigActive", "active", [{ $match: { qty: { $gte: 15 } } }]);
check(d.bigActive.find().toArray().length === 2, "view on view");

const infos = d.getCollectionInfos({ type: "view" });
check(infos.length === 2 && infos[0].options.viewOn === "orders" && infos[0].info.readOnly === true,
  "getCollectionInfos: " + EJSON.stringify(infos));

let code = 0;
try { d.active.insertOne({ x: 1 }); } catch (e) { code = e.code; }
check(code === 166, "insertOne into a view: " + code);
code = 0;
try { d.active.createIndex({ qty: 1 }); } catch (e) { code = e.code; }
check(code === 166, "createIndex on a view: " + code);
code = 0;
try { d.createView("loop", "loop", []); } catch (e) { code = e.code; }
check(code === 5, "a view on itself: " + code);

check(d.bigActive.drop() === true, "drop view");
check(d.getCollectionNames().indexOf("bigActive") < 0, "dropped view still listed");
d.dropDatabase();
print("views OK");
