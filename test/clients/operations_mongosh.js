// Operations from mongosh against a `lode serve --config` server (run
// by TestServeMongodConfig): logRotate, compact and, last,
// db.shutdownServer(). The Go test checks the log files and the exit.
const show = (x) => { try { return EJSON.stringify(x); } catch (e) { return String(x); } };
const check = (ok, what) => { if (!ok) throw new Error(what); };
// fails runs fn and returns the error it throws, which must have code
// name want.
const fails = (fn, want) => {
  let r;
  try { r = fn(); } catch (e) {
    check(e.codeName === want, "want " + want + ", got " + e.codeName + ": " + e.message);
    return e;
  }
  throw new Error("want " + want + ", got a reply: " + show(r));
};
const t = db.getSiblingDB("opstest");
t.dropDatabase();

// logRotate: the log file is renamed with a UTC timestamp suffix.
const rot = db.adminCommand({logRotate: 1});
check(rot.ok === 1, show(rot));
print("rotated");
// Only the server log exists: any other log type is NoSuchKey.
fails(() => db.adminCommand({logRotate: "audit"}), "NoSuchKey");

// compact: refused on the replica-set primary without force, as mongod.
t.c.insertMany(Array.from({length: 2000}, (_, i) => ({_id: i, pad: "x".repeat(200) + i})));
t.c.createIndex({pad: 1});
const e = fails(() => t.runCommand({compact: "c"}), "IllegalOperation");
check(/use force:true to force/.test(e.message), e.message);
// The documents are flushed to the data files, then deleted: the
// deletions are still in memory when compact runs, so no background
// compaction can have given the space back before it.
db.adminCommand({fsync: 1});
t.c.deleteMany({_id: {$lt: 1900}});
const res = t.runCommand({compact: "c", force: true});
check(res.ok === 1, show(res));
check(typeof res.bytesFreed === "number" && res.bytesFreed > 0, "bytesFreed " + show(res));
print("bytesFreed=" + res.bytesFreed);
check(t.c.countDocuments({}) === 100, "count after compact");
check(t.c.find({pad: {$gt: ""}}).hint({pad: 1}).itcount() === 100, "index scan after compact");
// A view and a missing collection are refused as mongod refuses them.
t.createView("v", "c", []);
fails(() => t.runCommand({compact: "v", force: true}), "CommandNotSupportedOnView");
fails(() => t.runCommand({compact: "nosuch", force: true}), "NamespaceNotFound");

// shutdown: only on admin.
fails(() => t.runCommand({shutdown: 1}), "Unauthorized");
print("checks passed");
// The server exits under the command, as mongod does: the client sees
// its connection close, with no reply.
try {
  const r = db.shutdownServer();
  print("shutdownServer replied " + show(r));
} catch (err) {
  print("shutdownServer: " + err.name + ": " + err.message);
}
