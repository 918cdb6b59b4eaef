"""MongoDB's "Find Restaurants with Geospatial Queries" tutorial through
pymongo 3.11, on a synthetic data set shaped like the tutorial's
(neighborhood polygons around Harlem, restaurant points on a grid). Every
expected result is computed here, independently of Lode: point-in-polygon
in the plane (edges are kept far from every restaurant, so the sphere and
the plane agree) and haversine distances on mongod's sphere (6378.1 km)."""
import math
import sys

from pymongo import MongoClient, GEOSPHERE
from pymongo.errors import OperationFailure

R = 6378.1 * 1000
METERS_PER_MILE = 1609.34
HERE = [-73.93414657, 40.82302903]

client = MongoClient(sys.argv[1])
db = client.geo_tutorial
db.drop_collection("restaurants")
db.drop_collection("neighborhoods")


def ring(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]


# Neighborhood edges sit on multiples of 0.01 degree; restaurants on the
# half-way grid (x.xx5, 0.01 apart), so none is near an edge.
hoods = [
    {"name": "Central Harlem North-Polo Grounds", "geometry": {"type": "Polygon", "coordinates": [ring(-73.96, 40.81, -73.92, 40.84)]}},
    {"name": "Hamilton Heights", "geometry": {"type": "Polygon", "coordinates": [ring(-73.96, 40.84, -73.92, 40.87)]}},
    {"name": "Morningside Heights", "geometry": {"type": "Polygon", "coordinates": [ring(-74.00, 40.79, -73.96, 40.83),
                                                                                   ring(-73.99, 40.80, -73.98, 40.81)]}},
]
db.neighborhoods.insert_many(hoods)
restaurants = []
i = 0
for gx in range(30):
    for gy in range(20):
        lng = round(-74.005 + gx * 0.01, 6)
        lat = round(40.775 + gy * 0.01, 6)
        restaurants.append({"_id": i, "name": "r%d" % i, "location": {"type": "Point", "coordinates": [lng, lat]}})
        i += 1
db.restaurants.insert_many(restaurants)
db.restaurants.create_index([("location", GEOSPHERE)])
db.neighborhoods.create_index([("geometry", GEOSPHERE)])


def inside_ring(p, r):
    x, y = p
    xs = [q[0] for q in r]
    ys = [q[1] for q in r]
    return min(xs) < x < max(xs) and min(ys) < y < max(ys)


def inside_polygon(p, coords):
    return inside_ring(p, coords[0]) and not any(inside_ring(p, h) for h in coords[1:])


def haversine(a, b):
    rad = math.pi / 180
    dlat = (b[1] - a[1]) * rad
    dlng = (b[0] - a[0]) * rad
    h = math.sin(dlat / 2) ** 2 + math.cos(a[1] * rad) * math.cos(b[1] * rad) * math.sin(dlng / 2) ** 2
    return 2 * math.atan2(math.sqrt(h), math.sqrt(1 - h))


# Step: find the current neighborhood ($geoIntersects with a point).
hood = db.neighborhoods.find_one({"geometry": {"$geoIntersects": {"$geometry": {"type": "Point", "coordinates": HERE}}}})
assert hood["name"] == "Central Harlem North-Polo Grounds", hood

# Step: find all restaurants in the neighborhood ($geoWithin its geometry).
got = sorted(d["_id"] for d in db.restaurants.find({"location": {"$geoWithin": {"$geometry": hood["geometry"]}}}))
want = sorted(r["_id"] for r in restaurants if inside_polygon(r["location"]["coordinates"], hood["geometry"]["coordinates"]))
assert got == want and len(want) > 0, (len(got), len(want))

# A neighborhood with a hole excludes the restaurants inside the hole.
mh = db.neighborhoods.find_one({"name": "Morningside Heights"})
got = sorted(d["_id"] for d in db.restaurants.find({"location": {"$geoWithin": {"$geometry": mh["geometry"]}}}))
want = sorted(r["_id"] for r in restaurants if inside_polygon(r["location"]["coordinates"], mh["geometry"]["coordinates"]))
assert got == want, (len(got), len(want))
assert db.restaurants.count_documents({"location": {"$geoWithin": {"$geometry": {"type": "Polygon", "coordinates": [mh["geometry"]["coordinates"][1]]}}}}) == 1

# Step: find restaurants within a distance, unsorted ($centerSphere, radians).
radius = 5 / 3963.2
got = sorted(d["_id"] for d in db.restaurants.find({"location": {"$geoWithin": {"$centerSphere": [HERE, radius]}}}))
want = sorted(r["_id"] for r in restaurants if haversine(HERE, r["location"]["coordinates"]) <= radius)
assert got == want, (len(got), len(want))

# Step: find restaurants within a distance, sorted ($nearSphere, meters).
max_m = 1 * METERS_PER_MILE
cur = db.restaurants.find({"location": {"$nearSphere": {"$geometry": {"type": "Point", "coordinates": HERE}, "$maxDistance": max_m}}})
got = [d["_id"] for d in cur]
ranked = sorted((haversine(HERE, r["location"]["coordinates"]) * R, r["_id"]) for r in restaurants)
want = [i for d, i in ranked if d <= max_m]
assert [round(haversine(HERE, restaurants[i]["location"]["coordinates"]) * R, 6) for i in got] == [round(d, 6) for d, i in ranked if d <= max_m], got
assert sorted(got) == sorted(want), (got, want)

# The same through the $geoNear stage, with distances.
res = list(db.restaurants.aggregate([{"$geoNear": {"near": {"type": "Point", "coordinates": HERE}, "distanceField": "dist",
                                                   "maxDistance": max_m, "spherical": True}}, {"$limit": 5}]))
assert [d["_id"] for d in res] == got[:5], res
for d in res:
    assert abs(d["dist"] - haversine(HERE, d["location"]["coordinates"]) * R) < 1e-3, d

# $near needs a geo index.
try:
    list(db.neighborhoods.find({"name": {"$near": {"$geometry": {"type": "Point", "coordinates": HERE}}}}))
    raise AssertionError("$near without an index succeeded")
except OperationFailure as e:
    assert e.code == 291, e.details

print("geo tutorial ok")
