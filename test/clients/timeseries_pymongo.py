"""Time series collections through pymongo 3.11: create_collection with
timeseries and expireAfterSeconds, insert_many, create_index and
index_information in the collection's terms, list_collections, the
buckets read directly, find, count_documents and aggregate through the
collection, and the insert errors mongod gives."""
import datetime
import sys

from pymongo import MongoClient, ASCENDING, DESCENDING
from pymongo.errors import BulkWriteError, OperationFailure

client = MongoClient(sys.argv[1])
db = client.timeseries_py
db.drop_collection("events")
db.create_collection("events", timeseries={"timeField": "time", "metaField": "host"}, expireAfterSeconds=86400 * 365 * 10)
info = db.command("listCollections", filter={"name": "events"})["cursor"]["firstBatch"][0]
assert info["type"] == "timeseries" and info["options"]["timeseries"]["granularity"] == "seconds", info
start = datetime.datetime(2026, 1, 1)
docs = [{"time": start + datetime.timedelta(seconds=i), "host": "h%d" % (i % 5), "path": "/p%d" % i} for i in range(2500)]
db.events.insert_many(docs)
buckets = list(db["system.buckets.events"].find())
assert len(buckets) == 5 and sum(len(b["data"]["time"]) for b in buckets) == 2500, len(buckets)
assert all(b["control"]["min"]["time"] <= b["control"]["max"]["time"] for b in buckets)
assert db.events.count_documents({"host": "h1"}) == 500
late = list(db.events.find({"time": {"$gte": start + datetime.timedelta(seconds=2000)}}, sort=[("time", ASCENDING)]))
assert len(late) == 500 and late[0]["time"] == start + datetime.timedelta(seconds=2000) and late[0]["path"] == "/p2000", late[:1]
per_host = {d["_id"]: d["n"] for d in db.events.aggregate([{"$group": {"_id": "$host", "n": {"$sum": 1}}}])}
assert per_host == {"h%d" % i: 500 for i in range(5)}, per_host
db.events.create_index([("host", ASCENDING), ("time", DESCENDING)])
names = sorted(db.events.index_information())
assert names == ["host_1_time_-1", "host_1_time_1"], names
try:
    db.events.insert_many([{"time": start, "host": "a"}, {"host": "no time"}], ordered=True)
    raise AssertionError("a measurement without its time field was inserted")
except BulkWriteError as e:
    errs = e.details["writeErrors"]
    assert len(errs) == 1 and errs[0]["index"] == 1 and errs[0]["code"] == 2, e.details
try:
    db.create_collection("bad", timeseries={"timeField": "t", "bucketMaxSpanSeconds": 10})
    raise AssertionError("bucketMaxSpanSeconds alone accepted")
except OperationFailure as e:
    assert e.code == 72, e
stats = db.command("collStats", "events")
assert stats["timeseries"]["bucketCount"] == 6, stats["timeseries"]
print("timeseries pymongo ok")
