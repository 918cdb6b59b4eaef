// db.currentOp() and db.killOp() in mongosh: mongosh 2.x runs currentOp as
// {aggregate: 1, pipeline: [{$currentOp: {...}}, {$match: ...}]} on admin.
// The Go test keeps a tailable getMore waiting on test.events; this script
// finds it, kills it, and checks the option forms mongosh sends.
const deadline = Date.now() + 10000;
let ops = [];
while (Date.now() < deadline) {
  ops = db.currentOp({ op: "getmore", ns: "test.events" }).inprog;
  if (ops.length === 1) break;
  sleep(50);
}
if (ops.length !== 1) throw new Error("waiting getMore not in db.currentOp(): " + tojson(ops));
const op = ops[0];
if (op.active !== true || op.type !== "op" || typeof op.opid !== "number") {
  throw new Error("bad currentOp entry: " + tojson(op));
}

// db.currentOp(true) includes idle connections (active: false entries);
// db.currentOp() does not.
if (db.currentOp({ active: false }).inprog.length !== 0) {
  throw new Error("db.currentOp() listed inactive entries");
}
if (db.currentOp(true).inprog.filter(o => o.active === false).length < 1) {
  throw new Error("db.currentOp(true) listed no idle connection");
}
// The helper works from any database (it runs on admin).
if (db.getSiblingDB("test").currentOp({ op: "getmore" }).inprog.length !== 1) {
  throw new Error("currentOp from the test database");
}

const res = db.killOp(op.opid);
if (res.ok !== 1) throw new Error("killOp: " + tojson(res));
print("ops killed " + op.opid);
