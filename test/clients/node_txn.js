// Sessions, retryable writes and transactions through the official Node
// driver (test/clients/node). Usage: node node_txn.js URI
const { MongoClient } = require("./node/node_modules/mongodb");

async function main() {
  const client = new MongoClient(process.argv[2]);
  await client.connect();
  const hello = await client.db("admin").command({ hello: 1 });
  if (hello.setName !== "lode") throw new Error("no setName: " + JSON.stringify(hello));
  const accounts = client.db("bank").collection("accounts");
  await accounts.deleteMany({});
  await accounts.insertMany([{ _id: "A", balance: 100 }, { _id: "B", balance: 0 }]);
  const session = client.startSession();
  try {
    for (let i = 0; i < 10; i++) {
      await session.withTransaction(async () => {
        const a = await accounts.findOne({ _id: "A" }, { session });
        if (a.balance < 10) return;
        await accounts.updateOne({ _id: "A" }, { $inc: { balance: -10 } }, { session });
        await accounts.updateOne({ _id: "B" }, { $inc: { balance: 10 } }, { session });
      }, { readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
    }
  } finally {
    await session.endSession();
  }
  const b = await accounts.findOne({ _id: "B" });
  if (b.balance !== 100) throw new Error("B balance " + b.balance);
  // Two concurrent transactions on one document: one gets WriteConflict
  // labelled TransientTransactionError.
  const s1 = client.startSession(), s2 = client.startSession();
  s1.startTransaction();
  s2.startTransaction();
  await accounts.updateOne({ _id: "A" }, { $set: { x: 1 } }, { session: s1 });
  let label = false;
  try {
    await accounts.updateOne({ _id: "A" }, { $set: { x: 2 } }, { session: s2 });
  } catch (e) {
    label = e.code === 112 && e.hasErrorLabel("TransientTransactionError");
  }
  await s1.commitTransaction();
  try { await s2.abortTransaction(); } catch (e) {}
  await s1.endSession();
  await s2.endSession();
  if (!label) throw new Error("no WriteConflict with TransientTransactionError");
  await client.close();
  console.log("node txn OK");
}

main().catch((e) => { console.error(e); process.exit(1); });
