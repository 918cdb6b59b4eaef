// Change streams through the Node driver: insert, update with
// updateLookup, replace, delete, drop and invalidate on a collection
// stream in commit order, then (phase 2, after the test restarts lode
// serve) a resume from the update event's token.
// Usage: node changestream_node.js URI PHASE [TOKEN]
const { MongoClient, BSON } = require("./node/node_modules/mongodb");
const want = ["insert", "update", "replace", "delete", "drop", "invalidate"];

async function drain(cs, n) {
  const out = [];
  const deadline = Date.now() + 10000;
  while (out.length < n && Date.now() < deadline) {
    const ev = await cs.tryNext();
    if (ev) out.push(ev);
  }
  return out;
}

async function main() {
  const client = new MongoClient(process.argv[2]);
  await client.connect();
  const coll = client.db("cs_node").collection("c");
  try {
    if (process.argv[3] === "1") {
      await client.db("cs_node").dropDatabase();
      await client.db("cs_node").createCollection("c");
      const cs = coll.watch([], { fullDocument: "updateLookup", maxAwaitTimeMS: 200 });
      await cs.tryNext(); // the driver opens the stream lazily
      await coll.insertOne({ _id: 1, n: 1 });
      await coll.updateOne({ _id: 1 }, { $inc: { n: 1 } });
      // updateLookup reads the document when the event is delivered:
      // take the update before the document changes again.
      const evs = await drain(cs, 2);
      await coll.replaceOne({ _id: 1 }, { r: true });
      await coll.deleteOne({ _id: 1 });
      await coll.drop();
      evs.push(...await drain(cs, want.length - 2));
      await cs.close();
      const got = evs.map(e => e.operationType);
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error("events " + JSON.stringify(got));
      if (evs[1].fullDocument.n !== 2 || evs[1].updateDescription.updatedFields.n !== 2)
        throw new Error("update " + JSON.stringify(evs[1]));
      console.log("TOKEN " + BSON.EJSON.stringify(evs[1]._id));
      console.log("changestream phase 1 OK");
    } else {
      const tok = BSON.EJSON.parse(process.argv[4]);
      const cs = coll.watch([], { resumeAfter: tok, maxAwaitTimeMS: 200 });
      const evs = await drain(cs, want.length - 2);
      await cs.close();
      const got = evs.map(e => e.operationType);
      if (JSON.stringify(got) !== JSON.stringify(want.slice(2))) throw new Error("resumed events " + JSON.stringify(got));
      console.log("changestream phase 2 OK");
    }
  } finally {
    await client.close();
  }
}

main().catch(e => { console.error(e); process.exit(1); });
