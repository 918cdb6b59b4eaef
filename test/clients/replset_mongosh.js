// mongosh's replica-set helpers against lode serve: rs.status(),
// rs.conf(), db.getReplicationInfo(), db.printReplicationInfo() and
// rs.printReplicationInfo(), each from the server's real state.
function check(cond, what, v) {
  if (!cond) throw new Error(what + ": " + EJSON.stringify(v));
}
const app = db.getSiblingDB("app");
app.items.insertMany([{ _id: 1 }, { _id: 2 }]);
const local = db.getSiblingDB("local");
const newest = local.oplog.rs.find().sort({ $natural: -1 }).limit(1).next();
check(newest.op === "i" && newest.ns === "app.items" && newest.o._id === 2, "newest entry", newest);

const st = rs.status();
check(st.ok === 1 && st.set === "lode" && st.myState === 1, "rs.status()", st);
check(st.members.length === 1, "members", st.members);
const me = st.members[0];
check(me.stateStr === "PRIMARY" && me.health === 1 && me.self === true, "member", me);
check(me.optime.ts.equals(newest.ts), "member optime vs newest entry", [me.optime, newest.ts]);
check(me.optimeDate.getTime() === newest.ts.getHighBits() * 1000, "optimeDate", me.optimeDate);
check(st.optimes.appliedOpTime.ts.equals(newest.ts) && st.optimes.durableOpTime.ts.equals(newest.ts), "optimes", st.optimes);

const conf = rs.conf();
check(conf._id === "lode" && conf.version === 1 && conf.members.length === 1, "rs.conf()", conf);
check(conf.members[0].host === me.name && conf.members[0].votes === 1 && conf.members[0].priority === 1, "conf member", conf.members[0]);

const info = db.getReplicationInfo();
check(info.configuredLogSizeMB === 1024 && info.logSizeMB === 1024, "log size", info);
check(info.usedMB > 0 && typeof info.tFirst === "string" && typeof info.tLast === "string" && info.timeDiff >= 0, "getReplicationInfo()", info);
check(!("errmsg" in info), "getReplicationInfo() error", info);

// The printing helpers return what they print.
const printed = db.printReplicationInfo().value;
check(printed["configured oplog size"] === "1024 MB" && printed["actual oplog size"] === "1024 MB", "printReplicationInfo()", printed);
check(/^\d+ secs/.test(printed["log length start to end"]) && printed["oplog last event time"] === info.tLast, "printReplicationInfo() times", printed);
check(rs.printReplicationInfo().value["configured oplog size"] === "1024 MB", "rs.printReplicationInfo()", rs.printReplicationInfo().value);

// Resizing through the shell, with mongod's types: a double of MB.
const r = db.adminCommand({ replSetResizeOplog: 1, size: Double(2048) });
check(r.ok === 1, "replSetResizeOplog", r);
check(db.getReplicationInfo().configuredLogSizeMB === 2048, "size after resize", db.getReplicationInfo());
let err = null;
try { db.adminCommand({ replSetResizeOplog: 1, size: Double(100) }); } catch (e) { err = e; }
check(err && err.code === 51024, "resize below 990 MB", err);
err = null;
try { local.oplog.rs.insertOne({ op: "n" }); } catch (e) { err = e; }
check(err && err.code === 73, "insert into local.oplog.rs", err);
print("replset helpers OK");
