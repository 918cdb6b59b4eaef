// The plan cache through mongosh's helpers: getPlanCache().list() reads
// $planCacheStats, clearPlansByQuery and clear send planCacheClear, and
// explain shows the queryHash and planCacheKey of the entry; the index
// filter commands.
const d = db.getSiblingDB("plancache_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
const docs = [];
for (let i = 0; i < 2000; i++) docs.push({ _id: i, a: i % 10, b: i % 100 });
d.c.insertMany(docs);
d.c.createIndex({ a: 1 });
d.c.createIndex({ b: 1 });
const pc = d.c.getPlanCache();
const n = d.c.find({ a: 3, b: 13 }).toArray().length;
check(n === 20, "results: " + n);
let list = pc.list();
check(list.length === 1 && list[0].isActive === false, "after one run: " + JSON.stringify(list));
d.c.find({ a: 4, b: 14 }).toArray();
list = pc.list();
check(list.length === 1 && list[0].isActive === true, "after two runs: " + JSON.stringify(list));
check(d.c.find({ a: 3, b: 13 }).toArray().length === 20, "results with the cached plan");
const ex = d.c.find({ a: 5, b: 15 }).explain();
check(ex.queryPlanner.queryHash === list[0].queryHash, "explain queryHash " + ex.queryPlanner.queryHash);
check(ex.queryPlanner.planCacheKey === list[0].planCacheKey, "explain planCacheKey");
check(/^[0-9A-F]{8}$/.test(list[0].queryHash), "queryHash form " + list[0].queryHash);
d.c.find({ a: 3, b: { $gt: 13 } }).toArray();
check(pc.list().length === 2, "two shapes");
pc.clearPlansByQuery({ a: 0, b: 0 });
list = pc.list();
check(list.length === 1 && list[0].createdFromQuery.query.b.$gt !== undefined, "clearPlansByQuery: " + JSON.stringify(list));
pc.clear();
check(pc.list().length === 0, "clear");
d.c.find({ a: 3, b: 13 }).toArray();
d.c.createIndex({ a: 1, b: 1 });
check(pc.list().length === 0, "createIndex empties the cache");
// Index filters: the shape's plans use only the listed index.
let r = d.runCommand({ planCacheSetFilter: "c", query: { a: 1, b: 1 }, indexes: [{ a: 1 }] });
check(r.ok === 1, "planCacheSetFilter: " + JSON.stringify(r));
const fx = d.c.find({ a: 7, b: 17 }).explain();
check(fx.queryPlanner.indexFilterSet === true, "indexFilterSet");
check(JSON.stringify(fx.queryPlanner.winningPlan).includes('"a_1"'), "filtered plan: " + JSON.stringify(fx.queryPlanner.winningPlan));
check(d.c.find({ a: 3, b: 13 }).toArray().length === 20, "results with a filter");
r = d.runCommand({ planCacheListFilters: "c" });
check(r.filters.length === 1 && r.filters[0].indexes[0].a === 1, "planCacheListFilters: " + JSON.stringify(r));
d.runCommand({ planCacheClearFilters: "c" });
check(d.runCommand({ planCacheListFilters: "c" }).filters.length === 0, "planCacheClearFilters");
print("plancache OK");
