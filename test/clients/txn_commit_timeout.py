# commitTransaction {writeConcern: {j: true}, maxTimeMS: 1} through pymongo
# 3.11: when the journal wait outlives maxTimeMS after the transaction's
# writes are committed, the error must say UnknownTransactionCommitResult
# (not TransientTransactionError), a retried commit must succeed, and no
# transaction may be applied twice.
import sys
from pymongo import MongoClient
from pymongo.errors import OperationFailure
from pymongo.write_concern import WriteConcern

client = MongoClient(sys.argv[1])
coll = client.txtimeout.counter
coll.drop()
coll.insert_one({"_id": 1, "n": 0})

N = 40
calls = 0
timeouts = 0


def bump(session):
    global calls
    calls += 1
    coll.update_one({"_id": 1}, {"$inc": {"n": 1}}, session=session)


for _ in range(N):
    with client.start_session() as s:
        try:
            s.with_transaction(bump, write_concern=WriteConcern(j=True), max_commit_time_ms=1)
        except OperationFailure as e:
            assert e.has_error_label("UnknownTransactionCommitResult"), (e.code, e.details)
            assert not e.has_error_label("TransientTransactionError"), e.details
            timeouts += 1
            # The outcome is unknown: retry the commit until it answers.
            for attempt in range(100):
                try:
                    s.commit_transaction()
                    break
                except OperationFailure as e2:
                    assert e2.has_error_label("UnknownTransactionCommitResult"), (e2.code, e2.details)
            else:
                raise AssertionError("commit retries never succeeded")

n = coll.find_one({"_id": 1})["n"]
assert calls == N, ("callback runs", calls, N)
assert n == N, ("counter", n, N)
print("commit timeouts:", timeouts)
print("txn commit timeout OK")
