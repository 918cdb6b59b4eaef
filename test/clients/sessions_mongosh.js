// Logical sessions in mongosh, as with mongod 7.0 (test commands enabled):
// db.aggregate([{$listLocalSessions: {}}]) on admin lists the session
// cache, refreshLogicalSessionCacheNow flushes it into
// config.system.sessions, whose $listSessions helper form lists the
// records; killSessions aborts a session's transaction.
const admin = db.getSiblingDB("admin");
const s = db.getMongo().startSession();
s.getDatabase("test").getCollection("c").insertOne({ x: 1 });
const id = s.id.id;
const same = r => r._id.id.toString("hex") === id.toString("hex");

const local = admin.aggregate([{ $listLocalSessions: {} }]).toArray();
const mine = local.filter(same);
if (mine.length !== 1) throw new Error("session not in $listLocalSessions: " + tojson(local));
if (!(mine[0].lastUse instanceof Date)) throw new Error("lastUse: " + tojson(mine[0]));
if (mine[0]._id.uid.length() !== 32) throw new Error("uid: " + tojson(mine[0]));
if (admin.aggregate([{ $listLocalSessions: { allUsers: true } }]).toArray().filter(same).length !== 1) {
  throw new Error("allUsers");
}

let res = admin.runCommand({ refreshLogicalSessionCacheNow: 1 });
if (res.ok !== 1) throw new Error("refreshLogicalSessionCacheNow: " + tojson(res));
const sys = db.getSiblingDB("config").system.sessions;
const recs = sys.aggregate([{ $listSessions: {} }]).toArray();
if (recs.filter(same).length !== 1) throw new Error("session not in $listSessions: " + tojson(recs));
if (sys.aggregate([{ $listSessions: { allUsers: true } }]).toArray().filter(same).length !== 1) {
  throw new Error("$listSessions allUsers");
}
const ttl = sys.getIndexes().filter(ix => ix.name === "lsidTTLIndex");
if (ttl.length !== 1 || ttl[0].expireAfterSeconds !== 1800) throw new Error("lsidTTLIndex: " + tojson(sys.getIndexes()));

// The stage is first-only and refused on a collection, with mongod's codes.
let code = 0;
try { db.getSiblingDB("test").c.aggregate([{ $listLocalSessions: {} }]).toArray(); } catch (e) { code = e.code; }
if (code !== 73) throw new Error("on a collection: " + code);
code = 0;
try { sys.aggregate([{ $match: {} }, { $listSessions: {} }]).toArray(); } catch (e) { code = e.code; }
if (code !== 40602) throw new Error("not first: " + code);

// killSessions aborts the session's open transaction.
s.startTransaction();
s.getDatabase("test").getCollection("c").insertOne({ x: 2 });
res = admin.runCommand({ killSessions: [s.id] });
if (res.ok !== 1) throw new Error("killSessions: " + tojson(res));
code = 0;
try { s.commitTransaction(); } catch (e) { code = e.code; }
if (code !== 251) throw new Error("commit after killSessions: " + code);
s.endSession();
print("sessions mongosh OK");
