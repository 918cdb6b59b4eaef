"""Collations through pymongo 3.11: a collection default collation
({locale: "fr_CA", strength: 2}), a case-insensitive index, find/count/
distinct/sort with a collation, the full spec list_indexes and
list_collections report, caseFirst and caseLevel."""
import sys

from pymongo import MongoClient, ASCENDING
from pymongo.collation import Collation
from pymongo.errors import DuplicateKeyError, OperationFailure

client = MongoClient(sys.argv[1])
db = client.collation_py
db.drop_collection("names")
db.create_collection("names", collation=Collation("fr_CA", strength=2))
names = db.names
names.create_index([("first_name", ASCENDING)], unique=True)
names.insert_many([{"_id": 1, "first_name": "Hans"}, {"_id": 2, "first_name": "Hanselmann"}])
try:
    names.insert_one({"_id": 3, "first_name": "HANS"})
    raise AssertionError("HANS should duplicate Hans under strength 2")
except DuplicateKeyError:
    pass
assert [d["_id"] for d in names.find({"first_name": "hans"})] == [1]
simple = list(names.find({"first_name": "hans"}, collation=Collation("simple")))
assert simple == [], simple
spec = [i for i in names.list_indexes() if i["name"] == "first_name_1"][0]["collation"]
assert spec["locale"] == "fr_CA" and spec["strength"] == 2 and spec["backwards"] is True, spec
info = db.command("listCollections", filter={"name": "names"})["cursor"]["firstBatch"][0]
assert info["options"]["collation"]["version"] == "57.1", info

db.drop_collection("words")
words = db.words
words.insert_many([{"_id": i, "w": w} for i, w in enumerate(["b", "B", "a", "10", "2"])])
ci = Collation("en", strength=2)
assert words.count_documents({"w": "b"}, collation=ci) == 2
assert sorted(words.distinct("w", {"w": {"$in": ["A", "B"]}}, collation=ci)) == ["a", "b"]
order = [d["w"] for d in words.find({}, sort=[("w", 1), ("_id", 1)], collation=Collation("en", numericOrdering=True))]
assert order == ["2", "10", "a", "b", "B"], order
# Aggregation expressions and accumulators compare under the collation.
r = list(words.aggregate([{"$match": {"_id": {"$lt": 3}}}, {"$sort": {"_id": 1}},
                          {"$project": {"_id": 0, "e": {"$eq": ["$w", "B"]}}}], collation=ci))
assert [d["e"] for d in r] == [True, True, False], r
r = list(words.aggregate([{"$group": {"_id": None, "s": {"$addToSet": "$w"}}}], collation=ci))
assert len(r[0]["s"]) == 4, r
# caseFirst "upper" (ICU: "China" < "china" < "Denmark" < "denmark") and
# strength 1 with the case level (ICU: role = rôle < Role).
db.drop_collection("cases")
cases = db.cases
cases.insert_many([{"_id": i, "w": w} for i, w in enumerate(["denmark", "China", "Denmark", "china"])])
order = [d["w"] for d in cases.find({}, sort=[("w", 1)], collation=Collation("en", caseFirst="upper"))]
assert order == ["China", "china", "Denmark", "denmark"], order
order = [d["w"] for d in cases.find({}, sort=[("w", 1)], collation=Collation("en", caseFirst="lower"))]
assert order == ["china", "China", "denmark", "Denmark"], order
cases.insert_many([{"_id": 10, "w": "role"}, {"_id": 11, "w": "rôle"}, {"_id": 12, "w": "Role"}])
case1 = Collation("en", strength=1, caseLevel=True)
assert sorted(d["_id"] for d in cases.find({"w": "role"}, collation=case1)) == [10, 11]
assert [d["_id"] for d in cases.find({"w": "Role"}, collation=case1)] == [12]
# What Lode cannot honour stays refused.
try:
    words.find_one({}, collation=Collation("en", alternate="shifted", maxVariable="space"))
    raise AssertionError("maxVariable space should be refused")
except OperationFailure as e:
    assert e.code == 238, e
print("collation ok")
