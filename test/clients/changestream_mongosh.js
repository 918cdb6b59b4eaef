// Change streams through mongosh: every event kind in commit order on a
// database stream with showExpandedEvents, then (phase 2, after the test
// restarts lode serve) a resume from the update event's token.
// Environment: LODE_CS_PHASE (1 or 2), LODE_CS_TOKEN (phase 2).
const want = ["create", "insert", "update", "replace", "delete", "createIndexes", "createIndexes",
  "modify", "dropIndexes", "rename", "drop", "drop", "dropDatabase", "invalidate"];
const d = db.getSiblingDB("cs_mongosh");

function drain(cs, n) {
  const out = [];
  const deadline = Date.now() + 10000;
  while (out.length < n && Date.now() < deadline) {
    const ev = cs.tryNext();
    if (ev) out.push(ev); else sleep(20);
  }
  return out;
}

if (process.env.LODE_CS_PHASE === "1") {
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
  print("TOKEN " + EJSON.stringify(upd._id, { relaxed: false }));
  print("changestream phase 1 OK");
} else {
  const tok = EJSON.parse(process.env.LODE_CS_TOKEN);
  const cs = d.watch([], { showExpandedEvents: true, resumeAfter: tok });
  const evs = drain(cs, want.length - 3);
  const got = evs.map(e => e.operationType);
  if (JSON.stringify(got) !== JSON.stringify(want.slice(3))) throw new Error("resumed events " + JSON.stringify(got));
  print("changestream phase 2 OK");
}
