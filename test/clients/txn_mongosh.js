// Transactions and sessions through mongosh against lode serve.
// Run with a URI with or without replicaSet=lode / directConnection=true.
const h = db.hello();
if (h.setName !== "lode" || !h.isWritablePrimary) throw new Error("not a replica-set primary: " + tojson(h));

const accounts = db.getSiblingDB("bank").accounts;
accounts.drop();
accounts.insertMany([{ _id: "A", balance: 100 }, { _id: "B", balance: 0 }]);

const session = db.getMongo().startSession();
const acc = session.getDatabase("bank").accounts;
session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
acc.updateOne({ _id: "A" }, { $inc: { balance: -30 } });
acc.updateOne({ _id: "B" }, { $inc: { balance: 30 } });
// Own writes are visible inside, not outside.
if (acc.findOne({ _id: "A" }).balance !== 70) throw new Error("own write not visible");
if (accounts.findOne({ _id: "A" }).balance !== 100) throw new Error("uncommitted write visible");
session.commitTransaction();
if (accounts.findOne({ _id: "B" }).balance !== 30) throw new Error("commit lost");

session.startTransaction();
acc.updateOne({ _id: "A" }, { $inc: { balance: -1000 } });
session.abortTransaction();
if (accounts.findOne({ _id: "A" }).balance !== 70) throw new Error("abort applied the write");

// DDL inside a transaction is refused (MongoDB 7.0: 263).
session.startTransaction();
let code = 0;
try {
  const r = session.getDatabase("bank").runCommand({ drop: "accounts" });
  code = r.code;
} catch (e) { code = e.code; }
try { session.abortTransaction(); } catch (e) {}
if (code !== 263) throw new Error("drop in transaction: code " + code);
session.endSession();
print("txn mongosh OK");
