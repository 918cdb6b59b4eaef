"""$setWindowFields and $fill through pymongo 3.11: the reference page's
cumulative quantity per state (cakeSales), the range window over price,
$rank, and $fill's linear interpolation of the stock example; a
misuse fails with mongod's code (5339901)."""
import datetime
import sys

from pymongo import MongoClient
from pymongo.errors import OperationFailure

client = MongoClient(sys.argv[1])
db = client.window_py
db.drop_collection("cakeSales")
D = datetime.datetime
db.cakeSales.insert_many([
    {"_id": 0, "type": "chocolate", "orderDate": D(2020, 5, 18, 14, 10, 30), "state": "CA", "price": 13, "quantity": 120},
    {"_id": 1, "type": "chocolate", "orderDate": D(2021, 3, 20, 11, 30, 5), "state": "WA", "price": 14, "quantity": 140},
    {"_id": 2, "type": "vanilla", "orderDate": D(2021, 1, 11, 6, 31, 15), "state": "CA", "price": 12, "quantity": 145},
    {"_id": 3, "type": "vanilla", "orderDate": D(2020, 2, 8, 13, 13, 23), "state": "WA", "price": 13, "quantity": 104},
    {"_id": 4, "type": "strawberry", "orderDate": D(2019, 5, 18, 16, 9, 1), "state": "CA", "price": 41, "quantity": 162},
    {"_id": 5, "type": "strawberry", "orderDate": D(2019, 1, 8, 6, 12, 3), "state": "WA", "price": 43, "quantity": 134},
])
res = list(db.cakeSales.aggregate([
    {"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1}, "output": {
        "cumulativeQuantityForState": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}]))
got = [(d["_id"], d["cumulativeQuantityForState"]) for d in res]
assert got == [(4, 162), (0, 282), (2, 427), (5, 134), (3, 238), (1, 378)], got

res = list(db.cakeSales.aggregate([
    {"$setWindowFields": {"partitionBy": "$state", "sortBy": {"price": 1}, "output": {
        "quantityFromSimilarOrders": {"$sum": "$quantity", "window": {"range": [-10, 10]}}}}}]))
got = [(d["_id"], d["quantityFromSimilarOrders"]) for d in res]
assert got == [(2, 265), (0, 265), (4, 162), (3, 244), (1, 244), (5, 134)], got

res = list(db.cakeSales.aggregate([
    {"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1}, "output": {
        "rankQuantityForState": {"$rank": {}}}}}]))
got = [(d["_id"], d["rankQuantityForState"]) for d in res]
assert got == [(4, 1), (2, 2), (0, 3), (1, 1), (5, 2), (3, 3)], got

try:
    list(db.cakeSales.aggregate([{"$setWindowFields": {"output": {
        "x": {"$sum": "$quantity", "window": {"documents": [-1, 1]}}}}}]))
    raise AssertionError("documents window without sortBy succeeded")
except OperationFailure as e:
    assert e.code == 5339901, e.details

db.drop_collection("stock")
db.stock.insert_many([
    {"time": D(2021, 3, 8, 9), "price": 500}, {"time": D(2021, 3, 8, 10)},
    {"time": D(2021, 3, 8, 11), "price": 515}, {"time": D(2021, 3, 8, 12)},
    {"time": D(2021, 3, 8, 13)}, {"time": D(2021, 3, 8, 14), "price": 485}])
res = list(db.stock.aggregate([{"$fill": {"sortBy": {"time": 1}, "output": {"price": {"method": "linear"}}}}]))
assert [d["price"] for d in res] == [500, 507.5, 515, 505, 495, 485], res
client.drop_database("window_py")
print("window ok")
