"""Views through pymongo 3.11: create with viewOn/pipeline, reads through
the view (find, count_documents, distinct, aggregate, $lookup from a view),
list_collections' type "view", the writes mongod refuses on a view (166
CommandNotSupportedOnView), collMod of the pipeline, and drop."""
import sys

from pymongo import MongoClient
from pymongo.errors import OperationFailure, WriteError

client = MongoClient(sys.argv[1])
db = client.views_py
db.drop_collection("people")
db.people.insert_many([{"_id": i, "name": "p%d" % i, "age": 20 + i, "team": "ab"[i % 2]} for i in range(10)])
db.command("create", "adults", viewOn="people",
           pipeline=[{"$match": {"age": {"$gte": 25}}}, {"$project": {"name": 1, "team": 1}}])

adults = db.adults
names = [d["name"] for d in adults.find({}, sort=[("name", 1)])]
assert names == ["p5", "p6", "p7", "p8", "p9"], names
assert "age" not in adults.find_one(), adults.find_one()
assert adults.count_documents({"team": "a"}) == 2, adults.count_documents({"team": "a"})
assert sorted(adults.distinct("team")) == ["a", "b"], adults.distinct("team")
groups = list(adults.aggregate([{"$group": {"_id": "$team", "n": {"$sum": 1}}}, {"$sort": {"_id": 1}}]))
assert groups == [{"_id": "a", "n": 2}, {"_id": "b", "n": 3}], groups
joined = list(db.people.aggregate([
    {"$match": {"_id": {"$in": [1, 7]}}},
    {"$lookup": {"from": "adults", "localField": "_id", "foreignField": "_id", "as": "adult"}},
    {"$sort": {"_id": 1}}]))
assert [len(d["adult"]) for d in joined] == [0, 1], joined

info = {c["name"]: c for c in db.list_collections()}
assert info["adults"]["type"] == "view", info["adults"]
assert info["adults"]["options"]["viewOn"] == "people", info["adults"]
assert info["adults"]["info"]["readOnly"] is True, info["adults"]

for what, op in [
    ("insert", lambda: adults.insert_one({"name": "x"})),
    ("update", lambda: adults.update_one({}, {"$set": {"x": 1}})),
    ("delete", lambda: adults.delete_many({})),
    ("createIndex", lambda: adults.create_index("name")),
]:
    try:
        op()
    except (OperationFailure, WriteError) as e:
        assert e.code == 166, (what, e.code, str(e))
    else:
        raise AssertionError(what + " on a view succeeded")

db.command("collMod", "adults", viewOn="people", pipeline=[{"$match": {"age": {"$lt": 22}}}])
assert sorted(d["_id"] for d in adults.find()) == [0, 1], list(adults.find())

adults.drop()
assert "adults" not in db.list_collection_names()
assert db.people.count_documents({}) == 10
client.drop_database("views_py")
print("views ok")
