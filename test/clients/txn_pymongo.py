# Sessions, retryable writes and a transaction through pymongo 3.11.
import sys
from pymongo import MongoClient, ReadPreference
from pymongo.read_concern import ReadConcern
from pymongo.write_concern import WriteConcern

client = MongoClient(sys.argv[1], retryWrites=True)
hello = client.admin.command("ismaster")
assert hello.get("setName") == "lode", hello
db = client.bank
db.accounts.drop()
db.accounts.insert_many([{"_id": "A", "balance": 100}, {"_id": "B", "balance": 0}])


def move(session, amt):
    a = db.accounts.find_one({"_id": "A"}, session=session)
    if a["balance"] < amt:
        return False
    db.accounts.update_one({"_id": "A"}, {"$inc": {"balance": -amt}}, session=session)
    db.accounts.update_one({"_id": "B"}, {"$inc": {"balance": amt}}, session=session)
    return True


with client.start_session() as s:
    with s.start_transaction(read_concern=ReadConcern("snapshot"), write_concern=WriteConcern(w="majority")):
        assert move(s, 40)
    assert s.with_transaction(lambda ss: move(ss, 60))
    assert not s.with_transaction(lambda ss: move(ss, 1))
docs = {d["_id"]: d["balance"] for d in db.accounts.find()}
assert docs == {"A": 0, "B": 100}, docs
print("txn pymongo OK")
