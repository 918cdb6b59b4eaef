"""2d indexes with bits, min and max through pymongo 3.11 (the 2d index
reference page's options). Expected results are computed here by brute
force: planar distances and box membership over the inserted points."""
import math
import random
import sys

from pymongo import MongoClient, GEO2D
from pymongo.errors import WriteError

client = MongoClient(sys.argv[1])
db = client.geo2d_options
db.drop_collection("pts")
coll = db.pts
coll.create_index([("loc", GEO2D)], bits=32, min=-500, max=500)

info = coll.index_information()["loc_2d"]
assert info["bits"] == 32 and info["min"] == -500 and info["max"] == 500, info

rnd = random.Random(7)
pts = {}
for i in range(200):
    pts["p%d" % i] = [rnd.uniform(-500, 500), rnd.uniform(-500, 500)]
pts["corner"] = [500, 500]
coll.insert_many([{"_id": n, "loc": p} for n, p in pts.items()])

# Outside [min, max]: mongod's 13027, quoting the index's bounds.
for p in ([500.5, 0], [-600, 0], [0, 1000]):
    try:
        coll.insert_one({"_id": "out", "loc": p})
        raise AssertionError("out-of-range point %r accepted" % p)
    except WriteError as e:
        assert e.code == 13027, e.details
        assert e.details["errmsg"].startswith("point not in interval of [ -500, 500 ]"), e.details

# $geoWithin $box.
box = [[-250, 100], [300, 450]]
got = sorted(d["_id"] for d in coll.find({"loc": {"$geoWithin": {"$box": box}}}))
want = sorted(n for n, p in pts.items() if box[0][0] <= p[0] <= box[1][0] and box[0][1] <= p[1] <= box[1][1])
assert got == want, (got, want)

# $near with $maxDistance, nearest first.
q, maxd = [120, -80], 150
dist = {n: math.hypot(p[0] - q[0], p[1] - q[1]) for n, p in pts.items()}
got = [d["_id"] for d in coll.find({"loc": {"$near": q, "$maxDistance": maxd}})]
want = sorted((n for n in pts if dist[n] <= maxd), key=lambda n: dist[n])
assert got == want, (got, want)

# explain: the 2d index answers it.
plan = coll.find({"loc": {"$near": q, "$maxDistance": maxd}}).explain()["queryPlanner"]["winningPlan"]
assert "GEO_NEAR_2D" in str(plan), plan

print("geo2d options ok")
