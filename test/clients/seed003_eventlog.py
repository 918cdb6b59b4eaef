# Seed 003 "Storing Log Data" run through pymongo 3.11 against Lode: the
# inserts with each write concern, the bulk insert with continue_on_error,
# the queries and their indexes, explain, collstats indexSizes and the
# hits-per-path-per-day aggregation.
#
# Changes from the seed, and why:
# - pymongo.Connection is gone; MongoClient(uri) is used.
# - The event dict's keys are quoted (the seed's `_id: ...` is not Python).
# - find('time': {...}) is a syntax error; it is find({'time': {...}}).
# - db.events.insert(event, w=2) and (j=True, w=2) need a replica set with
#   two members; a one-member set (MongoDB or Lode) applies the write and
#   answers with a writeConcernError, code 100 UnsatisfiableWriteConcern,
#   which pymongo raises as WriteConcernError and which is asserted instead.
# - insert(docs, continue_on_error=True) still exists in pymongo 3.11 and is
#   used as written; pymongo sends it as an unordered insert, and the error
#   reports the failed insert.
# - The same event dict is inserted several times: pymongo sets its _id on
#   the first insert, so later inserts use copies without _id.
# - The aggregate command needs a cursor option since MongoDB 3.6
#   (cursor={} is added, results are read from cursor.firstBatch), and the
#   seed's pipeline has unbalanced brackets, fixed here.
# - explain(): the seed shows the 2.x format (cursor, nscanned); MongoDB 7.0
#   returns queryPlanner/executionStats, and the same facts are checked
#   there (index used, keys examined).
# - .hint(...) is added to the host/date query's explain: the seed explains
#   it after creating {time: 1, host: 1} and again after adding
#   {host: 1, time: 1}; here both indexes exist when it is explained, so
#   each explain hints the index of the seed's step to compare the two.
import copy
import sys
import time
from datetime import datetime

import bson
import pymongo
from pymongo import MongoClient
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure, WriteConcernError

conn = MongoClient(sys.argv[1])
db = conn.event_db
db.events.drop()


def check(cond, what):
    if not cond:
        raise AssertionError(what)


event = {
    '_id': bson.ObjectId(),
    'host': "127.0.0.1",
    'time': datetime(2000, 10, 10, 20, 55, 36),
    'path': "/apache_pb.gif",
    'referer': "[http://www.example.com/start.html](http://www.example.com/...",
    'user_agent': "Mozilla/4.08 [en] (Win98; I ;Nav)"
}


def fresh():
    e = copy.deepcopy(event)
    e.pop('_id')
    return e


db.events.insert(event, w=0)
db.events.insert(fresh())
# Alternatively, you can do this
db.events.insert(fresh(), w=1)
db.events.insert(fresh(), j=True)
for kwargs in ({'w': 2}, {'j': True, 'w': 2}):
    before = db.events.count_documents({})
    try:
        db.events.insert(fresh(), **kwargs)
        raise AssertionError('insert with %r succeeded on one member' % kwargs)
    except WriteConcernError as e:
        check(e.code == 100, 'write concern error %r: %r' % (kwargs, e.details))
        check(e.details.get('codeName') == 'UnsatisfiableWriteConcern', 'codeName %r' % e.details)
    check(db.events.count_documents({}) == before + 1, 'insert with %r applied' % kwargs)
# w=0 is not acknowledged: wait until it is visible.
for _ in range(100):
    if db.events.find_one({'_id': event['_id']}) is not None:
        break
    time.sleep(0.01)
check(db.events.find_one({'_id': event['_id']}) is not None, 'w=0 insert applied')

# Bulk insert with continue_on_error: the duplicate fails, the rest go in.
dup = bson.ObjectId()
batch = [dict(fresh(), _id=bson.ObjectId()) for _ in range(3)]
batch.insert(1, dict(fresh(), _id=dup))
batch.insert(3, dict(fresh(), _id=dup))
before = db.events.count_documents({})
try:
    db.events.insert(batch, continue_on_error=True)
    raise AssertionError('duplicate _id accepted')
except (DuplicateKeyError, BulkWriteError, OperationFailure) as e:
    check(getattr(e, 'code', 11000) == 11000, 'error %r' % e)
check(db.events.count_documents({}) == before + 4, 'continue_on_error inserted the rest')

# More events on several days and hosts for the queries.
docs = []
for i in range(48):
    docs.append({'host': '10.0.0.%d' % (i % 3), 'time': datetime(2000, 10, 10 + i // 24, i % 24, 0, 0),
                 'path': ['/a', '/b'][i % 2]})
db.events.insert_many(docs)

# Finding all events for a particular page.
q_events = db.events.find({'path': '/apache_pb.gif'})
n_gif = len(list(q_events))
check(n_gif == db.events.count_documents({'path': '/apache_pb.gif'}) and n_gif >= 8, 'by path: %d' % n_gif)
db.events.ensure_index('path')

# MongoDB registers collStats with the alias "collstats" (the seed's
# spelling). Index sizes are not 0 although nothing is flushed yet.
sizes = db.command('collstats', 'events')['indexSizes']
check('_id_' in sizes and 'path_1' in sizes, 'indexSizes %r' % sizes)
check(sizes['_id_'] > 0 and sizes['path_1'] > 0, 'indexSizes %r' % sizes)

# Finding all the events for a particular date.
q_events = db.events.find({'time':
    {'$gte': datetime(2000, 10, 10), '$lt': datetime(2000, 10, 11)}})
check(len(list(q_events)) == 24 + n_gif, 'by day')
db.events.ensure_index('time')

# Finding all events for a particular host/date.
q_events = db.events.find({
    'host': '10.0.0.1',
    'time': {'$gte': datetime(2000, 10, 10), '$lt': datetime(2000, 10, 11)}
})
check(len(list(q_events)) == 8, 'by host and day')
db.events.ensure_index([('time', 1), ('host', 1)])
db.events.ensure_index([('host', 1), ('time', 1)])


def explained(index):
    q = db.events.find({
        'host': '10.0.0.1',
        'time': {'$gte': datetime(2000, 10, 10), '$lt': datetime(2000, 10, 11)}
    }).hint(index)
    return q.explain()


ex = explained([('host', 1), ('time', 1)])
plan = str(ex['queryPlanner']['winningPlan'])
check('host_1_time_1' in plan, 'plan %s' % plan)
check(ex['executionStats']['nReturned'] == 8, 'n %r' % ex['executionStats'])
check(ex['executionStats']['totalKeysExamined'] == 8, 'keys examined with host_1_time_1: %r' % ex['executionStats'])
ex2 = explained([('time', 1), ('host', 1)])
check('time_1_host_1' in str(ex2['queryPlanner']['winningPlan']), 'plan 2')
check(ex2['executionStats']['totalKeysExamined'] > 8, 'time_1_host_1 scans more keys: %r' % ex2['executionStats'])

# Counting requests by day and page.
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
        'hits': {'$sum': 1}}}],
    cursor={})
rows = {(r['_id']['p'], r['_id']['y'], r['_id']['m'], r['_id']['d']): r['hits']
        for r in result['cursor']['firstBatch']}
want = {('/a', 2000, 10, 10): 12, ('/a', 2000, 10, 11): 12,
        ('/b', 2000, 10, 10): 12, ('/b', 2000, 10, 11): 12,
        ('/apache_pb.gif', 2000, 10, 10): n_gif}
check(rows == want, 'hits %r' % rows)
print('seed003 eventlog OK')
