# Seed 003 "Optimistic Update with Compensation": the two-phase transfer
# functions run through pymongo 3.11 against Lode.
#
# Changes from the seed, and why:
# - pymongo.Connection is gone; MongoClient(uri) is used.
# - prepare_transfer credits `dest`; the parameter is `destination`.
# - db.transaction -> db.transactions (the collection the code inserts into).
# - txns holds plain ObjectIds ($push: {txns: txn['_id']}) but retire and
#   rollback filter on 'txns._id' and rollback pulls {txns: {_id: id}}, which
#   matches no plain ObjectId: filters use {'txns': id} and pulls
#   {'$pull': {'txns': id}}, one consistent representation.
# - commit_transfer uses txnid, retire_transaction uses txn: both are
#   derived from their arguments (txn['_id'], a lookup of the transaction).
# - cleanup_transactions takes only max_txn_time (its txn argument is
#   unused), defines now, moves every expired new transaction to rollback
#   with update_many (the seed's update names an undefined txn_id) and
#   passes the transaction to rollback_transfer.
# - insert/update/remove are pymongo 3.11's deprecated legacy methods, kept
#   as in the seed; update returns the legacy dict with updatedExisting.
import sys
from datetime import datetime, timedelta
from bson import ObjectId
from pymongo import MongoClient

client = MongoClient(sys.argv[1])
db = client.seed003tx


class InsufficientFundsError(Exception):
    pass


class TransactionError(Exception):
    pass


def transfer(amt, source, destination, max_txn_time):
    txn = prepare_transfer(amt, source, destination)
    commit_transfer(txn, max_txn_time)


def prepare_transfer(amt, source, destination):
    # Create a transaction object
    now = datetime.utcnow()
    txnid = ObjectId()
    txn = {
        '_id': txnid,
        'state': 'new',
        'ts': datetime.utcnow(),
        'amt': amt,
        'src': source,
        'dst': destination}
    db.transactions.insert(txn)

    # "Prepare" the accounts
    result = db.accounts.update(
        {'_id': source, 'balance': {'$gte': amt}},
        {'$inc': {'balance': -amt},
         '$push': {'txns': txn['_id']}})
    if not result['updatedExisting']:
        db.transactions.remove({'_id': txnid})
        raise InsufficientFundsError(source)
    db.accounts.update(
        {'_id': destination},
        {'$inc': {'balance': amt},
         '$push': {'txns': txn['_id']}})
    return txn


def commit_transfer(txn, max_txn_time):
    # Mark the transaction as committed
    now = datetime.utcnow()
    cutoff = now - max_txn_time
    result = db.transactions.update(
        {'_id': txn['_id'], 'state': 'new', 'ts': {'$gt': cutoff}},
        {'$set': {'state': 'commit'}})
    if not result['updatedExisting']:
        raise TransactionError(txn['_id'])
    else:
        retire_transaction(txn['_id'])


def retire_transaction(txn_id):
    txn = db.transactions.find_one({'_id': txn_id})
    if txn is None:
        return
    db.accounts.update(
        {'_id': txn['src'], 'txns': txn_id},
        {'$pull': {'txns': txn_id}})
    db.accounts.update(
        {'_id': txn['dst'], 'txns': txn_id},
        {'$pull': {'txns': txn_id}})
    db.transactions.remove({'_id': txn_id})


def cleanup_transactions(max_txn_time):
    # Find & commit partially-committed transactions
    for txn in db.transactions.find({'state': 'commit'}, {'_id': 1}):
        retire_transaction(txn['_id'])

    # Move expired transactions to 'rollback' status:
    now = datetime.utcnow()
    cutoff = now - max_txn_time
    db.transactions.update_many(
        {'state': 'new', 'ts': {'$lt': cutoff}},
        {'$set': {'state': 'rollback'}})
    # Actually rollback transactions
    for txn in db.transactions.find({'state': 'rollback'}):
        rollback_transfer(txn)


def rollback_transfer(txn):
    db.accounts.update(
        {'_id': txn['src'], 'txns': txn['_id']},
        {'$inc': {'balance': txn['amt']},
         '$pull': {'txns': txn['_id']}})
    db.accounts.update(
        {'_id': txn['dst'], 'txns': txn['_id']},
        {'$inc': {'balance': -txn['amt']},
         '$pull': {'txns': txn['_id']}})
    db.transactions.remove({'_id': txn['_id']})


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def balances():
    return {a['_id']: (a['balance'], a['txns']) for a in db.accounts.find()}


db.accounts.drop()
db.transactions.drop()
db.accounts.insert_many([{'_id': 1, 'balance': 100, 'txns': []},
                         {'_id': 2, 'balance': 0, 'txns': []}])

# A full transfer.
transfer(55, 1, 2, timedelta(seconds=30))
check(balances() == {1: (45, []), 2: (55, [])}, 'after transfer: %r' % balances())
check(db.transactions.count_documents({}) == 0, 'transaction retired')

# Insufficient funds: nothing changes, the transaction is removed.
try:
    transfer(50, 1, 2, timedelta(seconds=30))
    raise AssertionError('short funds accepted')
except InsufficientFundsError:
    pass
check(balances() == {1: (45, []), 2: (55, [])}, 'after refused: %r' % balances())
check(db.transactions.count_documents({}) == 0, 'refused transaction removed')

# Crash after prepare: the cleanup rolls it back once it expired.
txn = prepare_transfer(20, 1, 2)
check(balances() == {1: (25, [txn['_id']]), 2: (75, [txn['_id']])}, 'prepared: %r' % balances())
cleanup_transactions(timedelta(seconds=30))  # not expired yet: untouched
check(db.transactions.find_one({'_id': txn['_id']})['state'] == 'new', 'young txn left alone')
cleanup_transactions(timedelta(seconds=0))
check(balances() == {1: (45, []), 2: (55, [])}, 'rolled back: %r' % balances())
check(db.transactions.count_documents({}) == 0, 'rolled-back transaction removed')
rollback_transfer(txn)  # idempotent
check(balances() == {1: (45, []), 2: (55, [])}, 'rollback twice: %r' % balances())

# Crash after the commit mark: the cleanup retires it.
txn = prepare_transfer(5, 2, 1)
db.transactions.update({'_id': txn['_id']}, {'$set': {'state': 'commit'}})
cleanup_transactions(timedelta(seconds=30))
check(balances() == {1: (50, []), 2: (50, [])}, 'retired by cleanup: %r' % balances())
retire_transaction(txn['_id'])  # idempotent
check(balances() == {1: (50, []), 2: (50, [])}, 'retire twice: %r' % balances())

# An expired transaction cannot commit.
txn = prepare_transfer(5, 1, 2)
db.transactions.update({'_id': txn['_id']}, {'$set': {'ts': datetime.utcnow() - timedelta(hours=1)}})
try:
    commit_transfer(txn, timedelta(seconds=30))
    raise AssertionError('expired transaction committed')
except TransactionError:
    pass
cleanup_transactions(timedelta(seconds=30))
check(balances() == {1: (50, []), 2: (50, [])}, 'expired rolled back: %r' % balances())
print('seed003 transfer OK')
