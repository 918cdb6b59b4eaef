// The examples of MongoDB's "Geospatial Queries" page and the $near,
// $geoWithin and $geoNear reference pages through mongosh's helpers, with
// their documented results, and the explain shapes mongod shows for them.
const d = db.getSiblingDB("geo_sh");
function eq(a, b, what) {
  if (EJSON.stringify(a) !== EJSON.stringify(b)) throw new Error((what || "") + ": got " + EJSON.stringify(a) + ", want " + EJSON.stringify(b));
}
function check(cond, what) { if (!cond) throw new Error(what); }
d.places.drop();
d.places.insertMany([
  { name: "Central Park", location: { type: "Point", coordinates: [-73.97, 40.77] }, category: "Parks" },
  { name: "Sara D. Roosevelt Park", location: { type: "Point", coordinates: [-73.9928, 40.7193] }, category: "Parks" },
  { name: "Polo Grounds", location: { type: "Point", coordinates: [-73.9375, 40.8303] }, category: "Stadiums" },
]);
eq(d.places.createIndex({ location: "2dsphere" }), "location_2dsphere");

// $near with $minDistance/$maxDistance: documented result Central Park.
const near = d.places.find({ location: { $near: { $geometry: { type: "Point", coordinates: [-73.9667, 40.78] },
  $minDistance: 1000, $maxDistance: 5000 } } }).toArray();
eq(near.map(x => x.name), ["Central Park"]);

// $geoNear with query: documented Central Park then Sara D. Roosevelt Park.
const gn = d.places.aggregate([{ $geoNear: { near: { type: "Point", coordinates: [-73.9667, 40.78] },
  spherical: true, query: { category: "Parks" }, distanceField: "calcDistance" } }]).toArray();
eq(gn.map(x => x.name), ["Central Park", "Sara D. Roosevelt Park"]);
check(gn[0].calcDistance < gn[1].calcDistance, EJSON.stringify(gn));

// $geoNear with minDistance (2 meters excludes neither park) and a $limit after it.
const gm = d.places.aggregate([{ $geoNear: { near: { type: "Point", coordinates: [-73.9667, 40.78] },
  distanceField: "distance", minDistance: 2, query: { category: "Parks" }, spherical: true } }, { $limit: 5 }]).toArray();
eq(gm.map(x => x.name), ["Central Park", "Sara D. Roosevelt Park"]);

// $geoWithin: no index needed.
d.plain.drop();
d.plain.insertMany(d.places.find({}, { _id: 0 }).toArray());
const box = { location: { $geoWithin: { $geometry: { type: "Polygon", coordinates: [[[-74, 40.75], [-73.9, 40.75], [-73.9, 40.85], [-74, 40.85], [-74, 40.75]]] } } } };
eq(d.plain.find(box).sort({ name: 1 }).toArray().map(x => x.name), ["Central Park", "Polo Grounds"]);
eq(d.places.find(box).sort({ name: 1 }).toArray().map(x => x.name), ["Central Park", "Polo Grounds"]);

// Explain: $near is GEO_NEAR_2DSPHERE over the index; $geoWithin with the
// index is FETCH > IXSCAN on the cell bounds.
const e1 = d.places.find({ location: { $near: { $geometry: { type: "Point", coordinates: [-73.9667, 40.78] } } } }).explain("executionStats");
eq(e1.queryPlanner.winningPlan.stage, "GEO_NEAR_2DSPHERE", "winning stage");
eq(e1.queryPlanner.winningPlan.indexName, "location_2dsphere");
eq(e1.executionStats.nReturned, 3);
const e2 = d.places.find(box).explain();
eq(e2.queryPlanner.winningPlan.stage, "FETCH");
eq(e2.queryPlanner.winningPlan.inputStage.stage, "IXSCAN");
eq(e2.queryPlanner.winningPlan.inputStage.indexName, "location_2dsphere");

// $near without a geo index: 291.
let code = 0;
try { d.plain.find({ location: { $near: { $geometry: { type: "Point", coordinates: [0, 0] } } } }).toArray(); } catch (e) { code = e.code; }
eq(code, 291);
print("geo OK");
