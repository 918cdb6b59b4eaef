# Logical sessions through pymongo 3.11 (test commands enabled): the
# session cache, its flush into config.system.sessions and $listSessions,
# endSessions and killAllSessionsByPattern.
import sys
import uuid
from bson.binary import Binary
from pymongo import MongoClient
from pymongo.errors import OperationFailure

client = MongoClient(sys.argv[1])
admin = client.admin
with client.start_session() as s:
    client.test.c.insert_one({"x": 1}, session=s)
    sid = s.session_id["id"]  # Binary subtype 4; pymongo 3.11 decodes it as a UUID
    sid_uuid = uuid.UUID(bytes=bytes(sid))
    local = list(admin.aggregate([{"$listLocalSessions": {}}]))
    assert any(r["_id"]["id"] == sid_uuid for r in local), local
    admin.command("refreshLogicalSessionCacheNow")
    sys_sessions = client.config["system.sessions"]
    recs = list(sys_sessions.aggregate([{"$listSessions": {"allUsers": True}}]))
    mine = [r for r in recs if r["_id"]["id"] == sid_uuid]
    assert len(mine) == 1 and len(mine[0]["_id"]["uid"]) == 32 and "lastUse" in mine[0], recs
    uid = mine[0]["_id"]["uid"]
    try:
        admin.command("killAllSessionsByPattern", [{"users": []}])
        raise AssertionError("users accepted")
    except OperationFailure as e:
        assert e.code == 238, e
    admin.command("killAllSessionsByPattern", [{"lsid": {"id": sid, "uid": Binary(bytes(uid), 0)}}])
# The driver ends its pooled sessions at close; end this one ourselves.
admin.command("endSessions", [{"id": sid}])
admin.command("refreshLogicalSessionCacheNow")
assert client.config["system.sessions"].count_documents({"_id.id": sid}) == 0
print("sessions pymongo OK")
