# Seed 003 "Counting requests by day and page", run through pymongo 3.11.
#
# Changes from the seed, and why:
# - pymongo.Connection is gone; MongoClient(uri) is used instead.
# - db.command('aggregate', ...) needs cursor={} since MongoDB 3.6; the
#   result is then a cursor document (result['cursor']['firstBatch']).
# - The seed's snippet has a stray '}' after the $group stage; it is
#   dropped so the Python parses.
import sys
from datetime import datetime
from pymongo import MongoClient

client = MongoClient(sys.argv[1])
db = client.event_db
db.events.drop()

# A known data set: hits at fixed times, two inside October 2000 for
# /a on the 10th, one for /b on the 10th, one for /a on the 11th, and
# two outside the month that the $match must drop.
events = [
    {'host': '127.0.0.1', 'time': datetime(2000, 10, 10, 20, 55, 36), 'path': '/a'},
    {'host': '127.0.0.2', 'time': datetime(2000, 10, 10, 23, 59, 59), 'path': '/a'},
    {'host': '127.0.0.1', 'time': datetime(2000, 10, 10, 0, 0, 0), 'path': '/b'},
    {'host': '127.0.0.3', 'time': datetime(2000, 10, 11, 0, 0, 0), 'path': '/a'},
    {'host': '127.0.0.1', 'time': datetime(2000, 9, 30, 23, 59, 59), 'path': '/a'},
    {'host': '127.0.0.1', 'time': datetime(2000, 11, 1, 0, 0, 0), 'path': '/a'},
]
db.events.insert_many(events)
db.events.create_index('time')

result = db.command('aggregate', 'events', pipeline=[
    {'$match': {
        'time': {
            '$gte': datetime(2000, 10, 1),
            '$lt': datetime(2000, 11, 1)}}},
    {'$project': {
        'path': 1,
        'date': {
            'y': {'$year': '$time'},
            'm': {'$month': '$time'},
            'd': {'$dayOfMonth': '$time'}}}},
    {'$group': {
        '_id': {
            'p': '$path',
            'y': '$date.y',
            'm': '$date.m',
            'd': '$date.d'},
        'hits': {'$sum': 1}}},
], cursor={})

got = sorted(((r['_id']['p'], r['_id']['y'], r['_id']['m'], r['_id']['d']), r['hits'])
             for r in result['cursor']['firstBatch'])
want = [(('/a', 2000, 10, 10), 2), (('/a', 2000, 10, 11), 1), (('/b', 2000, 10, 10), 1)]
if got != want:
    raise AssertionError('hits per path per day: got %r want %r' % (got, want))
if db.events.count_documents({'path': '/a'}) != 5:
    raise AssertionError('count_documents')
print('seed003 hits OK')
