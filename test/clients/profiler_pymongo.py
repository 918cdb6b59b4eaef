# The profiler and $queryStats through pymongo 3.11: Database.profiling_level,
# set_profiling_level and profiling_info (which reads system.profile),
# and the $queryStats stage on admin.
import sys
import pymongo
from pymongo import MongoClient
from pymongo.errors import OperationFailure

client = MongoClient(sys.argv[1])
db = client.profpy
db.items.drop()
db.items.insert_many([{"_id": i, "cat": i % 4} for i in range(40)])
db.items.create_index([("cat", 1)])

assert db.profiling_level() == pymongo.OFF, db.profiling_level()
db.set_profiling_level(pymongo.SLOW_ONLY, slow_ms=1000)
assert db.profiling_level() == pymongo.SLOW_ONLY
db.set_profiling_level(pymongo.ALL)
assert list(db.items.find({"cat": 2})) and len(list(db.items.find({"cat": 3}))) == 10
db.set_profiling_level(pymongo.OFF, slow_ms=100)

info = [e for e in db.profiling_info() if e["op"] == "query"]
assert len(info) == 2, info
for e in info:
    assert e["ns"] == "profpy.items" and e["planSummary"] == "IXSCAN { cat: 1 }", e
    assert e["keysExamined"] == 10 and e["docsExamined"] == 10 and e["nreturned"] == 10, e

try:
    db.command("profile", 0, sampleRate=2.0)
    raise AssertionError("sampleRate 2 accepted")
except OperationFailure as e:
    assert e.code == 2, e.details

stats = list(client.admin.aggregate([{"$queryStats": {}}]))
finds = [s for s in stats if s["key"]["queryShape"]["command"] == "find"
         and s["key"]["queryShape"]["cmdNs"] == {"db": "profpy", "coll": "items"}]
assert len(finds) == 1, stats
m = finds[0]["metrics"]
assert m["execCount"] == 2 and m["docsReturned"]["sum"] == 20, m
assert finds[0]["key"]["queryShape"]["filter"] == {"cat": {"$eq": "?number"}}, finds[0]
print("profiler pymongo OK")
