"""$redact, $graphLookup and $densify through pymongo 3.11: one example of
each stage's MongoDB reference page with its documented output, and one
error code each."""
import datetime
import sys

from pymongo import MongoClient
from pymongo.errors import OperationFailure

client = MongoClient(sys.argv[1])
db = client.stages19_py
client.drop_database("stages19_py")

# $redact: "Exclude All Fields at a Given Level".
db.accounts.insert_one({
    "_id": 1, "level": 1, "acct_id": "xyz123",
    "cc": {"level": 5, "type": "yy", "num": 0, "exp_date": datetime.datetime(2015, 11, 1),
           "billing_addr": {"level": 5, "addr1": "123 ABC Street", "city": "Some City"},
           "shipping_addr": [{"level": 3, "addr1": "987 XYZ Ave", "city": "Some City"},
                             {"level": 3, "addr1": "PO Box 0123", "city": "Some City"}]},
    "status": "A"})
out = list(db.accounts.aggregate([
    {"$match": {"status": "A"}},
    {"$redact": {"$cond": {"if": {"$eq": ["$level", 5]}, "then": "$$PRUNE", "else": "$$DESCEND"}}}]))
assert out == [{"_id": 1, "level": 1, "acct_id": "xyz123", "status": "A"}], out
try:
    list(db.accounts.aggregate([{"$redact": "$level"}]))
except OperationFailure as e:
    assert e.code == 17053, (e.code, str(e))
else:
    raise AssertionError("$redact returning a number succeeded")

# $graphLookup: "Within a Single Collection" (the result order is
# unspecified, so compare sets of names).
db.employees.insert_many([
    {"_id": 1, "name": "Dev"}, {"_id": 2, "name": "Eliot", "reportsTo": "Dev"},
    {"_id": 3, "name": "Ron", "reportsTo": "Eliot"}, {"_id": 4, "name": "Andrew", "reportsTo": "Eliot"},
    {"_id": 5, "name": "Asya", "reportsTo": "Ron"}, {"_id": 6, "name": "Dan", "reportsTo": "Andrew"}])
out = list(db.employees.aggregate([
    {"$graphLookup": {"from": "employees", "startWith": "$reportsTo", "connectFromField": "reportsTo",
                      "connectToField": "name", "as": "reportingHierarchy"}},
    {"$sort": {"_id": 1}}]))
got = {d["name"]: sorted(h["name"] for h in d["reportingHierarchy"]) for d in out}
assert got == {"Dev": [], "Eliot": ["Dev"], "Ron": ["Dev", "Eliot"], "Andrew": ["Dev", "Eliot"],
               "Asya": ["Dev", "Eliot", "Ron"], "Dan": ["Andrew", "Dev", "Eliot"]}, got
try:
    list(db.employees.aggregate([{"$graphLookup": {"from": "employees", "startWith": "$x", "connectFromField": "a",
                                                   "connectToField": "b", "as": "c", "maxDepth": -1}}]))
except OperationFailure as e:
    assert e.code == 40101, (e.code, str(e))
else:
    raise AssertionError("$graphLookup with a negative maxDepth succeeded")

# $densify: "Densify Time Series Data".
base = datetime.datetime(2021, 5, 18)
db.weather.insert_many([{"metadata": {"sensorId": 5578, "type": "temperature"},
                         "timestamp": base + datetime.timedelta(hours=h), "temp": t}
                        for h, t in [(0, 12), (4, 11), (8, 11), (12, 12)]])
out = list(db.weather.aggregate([
    {"$densify": {"field": "timestamp", "range": {"step": 1, "unit": "hour",
                                                  "bounds": [base, base + datetime.timedelta(hours=8)]}}},
    {"$project": {"_id": 0}}]))
hours = [(int((d["timestamp"] - base).total_seconds() // 3600), "temp" in d) for d in out]
assert hours == [(0, True), (1, False), (2, False), (3, False), (4, True), (5, False), (6, False), (7, False),
                 (8, True), (12, True)], hours
assert out[1] == {"timestamp": base + datetime.timedelta(hours=1)}, out[1]
try:
    list(db.weather.aggregate([{"$densify": {"field": "timestamp", "range": {"step": 1, "bounds": "full"}}}]))
except OperationFailure as e:
    assert e.code == 6053600, (e.code, str(e))
else:
    raise AssertionError("$densify of dates without a unit succeeded")

client.drop_database("stages19_py")
print("stages19 ok")
