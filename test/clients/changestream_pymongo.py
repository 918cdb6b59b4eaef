"""Change streams through pymongo 3.11: every event kind in commit order
on a database stream (phase 1), then (phase 2, after the test restarts
lode serve) a resume from the update event's token. Usage: URI
NEXT_URI_FILE: after phase 1 the script waits for that file, which the
test writes with the restarted server's URI once it listens."""
import os
import sys
import time

from bson import json_util
from pymongo import MongoClient

WANT = ["insert", "update", "replace", "delete", "rename", "drop", "drop",
        "dropDatabase", "invalidate"]


def drain(cs, n):
    out, deadline = [], time.time() + 10
    while len(out) < n and time.time() < deadline:
        ev = cs.try_next()
        if ev is not None:
            out.append(ev)
    return out


def phase1(client):
    d = client.cs_pymongo
    client.drop_database("cs_pymongo")
    d.keep.insert_one({"_id": 0})
    d.create_collection("a")
    with d.watch([], max_await_time_ms=200) as cs:
        d.a.insert_one({"_id": 1, "x": 1})
        d.a.update_one({"_id": 1}, {"$set": {"x": 2}, "$push": {"l": 5}})
        d.a.replace_one({"_id": 1}, {"y": 1})
        d.a.delete_one({"_id": 1})
        d.a.rename("b")
        d.b.drop()
        client.drop_database("cs_pymongo")
        evs = drain(cs, len(WANT))
    got = [e["operationType"] for e in evs]
    assert got == WANT, got
    upd = evs[1]["updateDescription"]
    assert upd["updatedFields"] == {"x": 2, "l": [5]}, upd
    assert evs[0]["fullDocument"] == {"_id": 1, "x": 1}, evs[0]
    assert evs[4]["to"] == {"db": "cs_pymongo", "coll": "b"}, evs[4]
    token = json_util.dumps(evs[1]["_id"])
    print("TOKEN " + token)
    print("changestream phase 1 OK", flush=True)
    return token


def phase2(client, token):
    d = client.cs_pymongo
    tok = json_util.loads(token)
    with d.watch([], resume_after=tok, max_await_time_ms=200) as cs:
        evs = drain(cs, len(WANT) - 2)
    got = [e["operationType"] for e in evs]
    assert got == WANT[2:], got
    print("changestream phase 2 OK")


def main():
    first = MongoClient(sys.argv[1])
    token = phase1(first)
    first.close()
    nxt, deadline = sys.argv[2], time.time() + 60
    while not os.path.exists(nxt):
        assert time.time() < deadline, "no restarted server after 60 s (%s)" % nxt
        time.sleep(0.02)
    with open(nxt) as f:
        phase2(MongoClient(f.read().strip()), token)


main()
