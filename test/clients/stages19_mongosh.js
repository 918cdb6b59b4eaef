// $graphLookup and $densify through mongosh: the "Across Multiple
// Collections" and "Densification with Partitions" examples of MongoDB's
// reference pages with their documented outputs.
const d = db.getSiblingDB("stages19_sh");
d.dropDatabase();
d.airports.insertMany([
  { _id: 0, airport: "JFK", connects: ["BOS", "ORD"] },
  { _id: 1, airport: "BOS", connects: ["JFK", "PWM"] },
  { _id: 2, airport: "ORD", connects: ["JFK"] },
  { _id: 3, airport: "PWM", connects: ["BOS", "LHR"] },
  { _id: 4, airport: "LHR", connects: ["PWM"] },
]);
d.travelers.insertMany([
  { _id: 1, name: "Dev", nearestAirport: "JFK" },
  { _id: 2, name: "Eliot", nearestAirport: "JFK" },
  { _id: 3, name: "Jeff", nearestAirport: "BOS" },
]);
const trips = d.travelers.aggregate([
  { $graphLookup: { from: "airports", startWith: "$nearestAirport", connectFromField: "connects",
      connectToField: "airport", maxDepth: 2, depthField: "numConnections", as: "destinations" } },
  { $sort: { _id: 1 } },
]).toArray();
const summary = trips.map(t => t.name + ":" + t.destinations
  .map(x => x.airport + x.numConnections.toString()).sort().join(","));
const want = ["Dev:BOS1,JFK0,ORD1,PWM2", "Eliot:BOS1,JFK0,ORD1,PWM2", "Jeff:BOS0,JFK1,LHR2,ORD2,PWM1"];
if (JSON.stringify(summary) !== JSON.stringify(want)) throw new Error("graphLookup: " + JSON.stringify(summary));
if (!(trips[0].destinations[0].numConnections instanceof Long)) throw new Error("depthField is not a long");

d.coffee.insertMany([
  { altitude: 600, variety: "Arabica Typica", score: 68.3 },
  { altitude: 750, variety: "Arabica Typica", score: 69.5 },
  { altitude: 950, variety: "Arabica Typica", score: 70.5 },
  { altitude: 1250, variety: "Gesha", score: 88.15 },
  { altitude: 1700, variety: "Gesha", score: 95.5, price: 1029 },
]);
const dense = d.coffee.aggregate([
  { $densify: { field: "altitude", partitionByFields: ["variety"], range: { bounds: "partition", step: 200 } } },
  { $project: { _id: 0 } },
]).toArray();
const got = dense.map(x => x.variety + "@" + x.altitude + (x.score === undefined ? "+" : ""));
const wantDense = ["Arabica Typica@600", "Arabica Typica@750", "Arabica Typica@800+", "Arabica Typica@950",
  "Gesha@1250", "Gesha@1450+", "Gesha@1650+", "Gesha@1700"];
if (JSON.stringify(got) !== JSON.stringify(wantDense)) throw new Error("densify: " + JSON.stringify(got));
d.dropDatabase();
print("stages19 mongosh OK");
