// Seed 002 (metadata as key/value arrays), every shell snippet run in
// mongosh against Lode, with the result the seed describes asserted.
// Changes from the seed:
// - mongosh has no db.getSisterDB (the legacy shell's alias); it is defined
//   below as db.getSiblingDB, its modern name, so the statements run as written.
// - The documents they query are inserted first (the seed shows them but
//   not the insert), and the "tags" example of $all gets a document with tags.
const assert = require('assert');
const meta = [
    {"key": "File Name", "value": "img_1771.jpg"},
    {"key": "File size", "value": 32764},
    {"key": "MIME type", "value": "image/jpeg"},
    {"key": "Image size", "value": {"width": 480, "height": 360}},
    {"key": "Camera make", "value": "Canon"},
    {"key": "Camera model", "value": "Canon PowerShot S40"},
    {"key": "Image timestamp", "value": ISODate("2014-01-01T10:01:00Z")},
    {"key": "Image number", "value": "117-1771"},
    {"key": "Exposure time", "value": "1/500 s"},
    {"key": "Aperture", "value": "F4.9"},
    {"key": "Exposure bias", "value": "0 EV"},
    {"key": "Flash", "value": "No, auto"}
];
const setup = db.getSiblingDB("supershot");
setup.images.drop();
setup.images.insertMany([
  {_id: 1, "userId": "olepeteraaa1", "metadata": meta, tags: ["appliance", "school", "book", "desk"]},
  {_id: 2, "userId": "olepeteraaa1", "metadata": meta.map(m => m.key === "Flash" ? {key: "Flash", value: "Yes"} : m), tags: ["school"]},
  {_id: 3, "userId": "someoneelse", "metadata": meta.map(m => m.key === "MIME type" ? {key: "MIME type", value: "image/png"} : m)},
]);

function withSister(d) { d.getSisterDB = (name) => withSister(d.getSiblingDB(name)); return d; }
withSister(db);

// Example 2
var col = db.getSisterDB("supershot").images;
const ex2 = col.findOne({tags: {$all: [ "appliance", "school", "book" ]}});
assert.strictEqual(ex2._id, 1);

// Example 3
var col = db.getSisterDB("supershot").images;
const ex3 = col.findOne({metadata: {$elemMatch: {key: "File Name", value: "img_1771.jpg"}}});
assert.ok(ex3 !== null && ex3.metadata[0].value === "img_1771.jpg");

// Example 4: MIME type image/jpeg and Flash "No, auto": only image 1.
var col = db.getSisterDB("supershot").images;
const ex4 = col.find({ metadata: { $all: [
            { "$elemMatch" : { key : "MIME type", value: "image/jpeg" } },
            { "$elemMatch" : { key: "Flash", value: "No, auto" } }
          ]}
       }).toArray();
assert.strictEqual(JSON.stringify(ex4.map(d => d._id)), "[1]");

// Example 5: the index (the seed creates it on db.images of the current db).
db = withSister(db.getSiblingDB("supershot"));
var col = db.getSisterDB("supershot").images;
db.images.ensureIndex({"metadata.key": 1, "metadata.value": 1});
const idx = db.images.getIndexes().map(i => i.name);
assert.ok(idx.includes("metadata.key_1_metadata.value_1"), 'index list: ' + idx);

// The same query is answered through the index, and embedded-document and
// date values match by value.
const plan = col.find({ metadata: { $all: [
  { "$elemMatch" : { key : "MIME type", value: "image/jpeg" } },
  { "$elemMatch" : { key: "Flash", value: "No, auto" } } ]}}).explain();
assert.ok(JSON.stringify(plan.queryPlanner.winningPlan).includes("metadata.key_1_metadata.value_1"), 'plan: ' + JSON.stringify(plan.queryPlanner.winningPlan));
assert.strictEqual(col.find({metadata: {$elemMatch: {key: "Image size", value: {"width": 480, "height": 360}}}}).count(), 3);
assert.strictEqual(col.find({metadata: {$elemMatch: {key: "Image timestamp", value: ISODate("2014-01-01T10:01:00Z")}}}).count(), 3);

// Sharding section: userId narrows to one user, the metadata within it.
const mine = col.find({userId: "olepeteraaa1", metadata: {$all: [{$elemMatch: {key: "MIME type", value: "image/jpeg"}}]}}).toArray();
assert.strictEqual(JSON.stringify(mine.map(d => d._id).sort()), "[1,2]");
print('seed002 OK');
