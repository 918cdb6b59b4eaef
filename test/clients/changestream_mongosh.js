// Change streams through mongosh: every event kind in commit order on a
// database stream with showExpandedEvents (phase 1), then (phase 2,
// after the test restarts lode serve) a resume from the update event's
// token. One process runs both: after phase 1 it waits for the file
// named by LODE_CS_NEXT_URI_FILE, which the test writes with the
// restarted server's URI once it listens.
const want = ["create", "insert", "update", "replace", "delete", "createIndexes", "createIndexes",
  "modify", "dropIndexes", "rename", "drop", "drop", "dropDatabase", "invalidate"];

function drain(cs, n) {
  const out = [];
  const deadline = Date.now() + 10000;
  while (out.length < n && Date.now() < deadline) {
    const ev = cs.tryNext();
    if (ev) out.push(ev); else sleep(20);
  }
  return out;
}

function phase1(d) {
  d.dropDatabase();
  d.keep.insertOne({ _id: 0 });
  const cs = d.watch([], { showExpandedEvents: true });
  d.createCollection("a");
  d.a.insertOne({ _id: 1, x: 1, tags: ["p", "q"] });
  d.a.updateOne({ _id: 1 }, { $set: { x: 2 }, $unset: { tags: "" } });
  d.a.replaceOne({ _id: 1 }, { y: 1 });
  d.a.deleteOne({ _id: 1 });
  d.a.createIndex({ y: 1 });
  d.a.createIndex({ t: 1 }, { expireAfterSeconds: 10 });
  d.runCommand({ collMod: "a", index: { keyPattern: { t: 1 }, expireAfterSeconds: 20 } });
  d.a.dropIndex("y_1");
  d.a.renameCollection("b");
  d.b.drop();
  d.dropDatabase();
  const evs = drain(cs, want.length);
  const got = evs.map(e => e.operationType);
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error("events " + JSON.stringify(got));
  const upd = evs[2];
  if (upd.updateDescription.updatedFields.x !== 2 || upd.updateDescription.removedFields[0] !== "tags")
    throw new Error("updateDescription " + EJSON.stringify(upd.updateDescription));
  if (evs[1].fullDocument.x !== 1 || evs[1].ns.coll !== "a" || evs[1].documentKey._id !== 1)
    throw new Error("insert " + EJSON.stringify(evs[1]));
  if (evs[9].to.coll !== "b") throw new Error("rename " + EJSON.stringify(evs[9]));
  if (!evs[5].operationDescription.indexes[0].key.y) throw new Error("createIndexes " + EJSON.stringify(evs[5]));
  for (let i = 1; i < evs.length; i++) {
    if (evs[i]._id._data <= evs[i - 1]._id._data) throw new Error("tokens out of order at " + i);
  }
  const tok = EJSON.stringify(upd._id, { relaxed: false });
  print("TOKEN " + tok);
  print("changestream phase 1 OK");
  return tok;
}

function phase2(d, token) {
  const tok = EJSON.parse(token);
  const cs = d.watch([], { showExpandedEvents: true, resumeAfter: tok });
  const evs = drain(cs, want.length - 3);
  const got = evs.map(e => e.operationType);
  if (JSON.stringify(got) !== JSON.stringify(want.slice(3))) throw new Error("resumed events " + JSON.stringify(got));
  print("changestream phase 2 OK");
}

const token = phase1(db.getSiblingDB("cs_mongosh"));
const fs = require("fs");
const next = process.env.LODE_CS_NEXT_URI_FILE;
const deadline = Date.now() + 60000;
while (!fs.existsSync(next)) {
  if (Date.now() > deadline) throw new Error("no restarted server after 60 s (" + next + ")");
  sleep(20);
}
phase2(connect(fs.readFileSync(next, "utf8").trim()).getSiblingDB("cs_mongosh"), token);
