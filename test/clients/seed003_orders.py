# Seed 003 "Using Complex Updates" and "Optimistic Update with
# Compensation" (the naive transfer), run through pymongo 3.11 against Lode.
#
# Changes from the seed, and why:
# - pymongo.Connection is gone; MongoClient(uri) is used instead.
# - The seed's $push fallback increments total by a literal 110.22 (the
#   price*qty of its example); total_update is used so the total stays
#   consistent for other inputs, as the surrounding text intends.
import sys
from pymongo import MongoClient

client = MongoClient(sys.argv[1])
db = client.seed003


class InsufficientFundsError(Exception):
    pass


def increase_qty(order_id, sku, price, qty):
    total_update = price * qty
    while True:
        result = db.orders.update(
            {'_id': order_id, 'items.sku': sku},
            {'$inc': {
                'total': total_update,
                'items.$.qty': qty}})
        if result['updatedExisting']:
            break
        result = db.orders.update(
            {'_id': order_id, 'items.sku': {'$ne': sku}},
            {'$inc': {'total': total_update},
             '$push': {'items': {'sku': sku,
                                 'qty': qty,
                                 'price': price}}})
        if result['updatedExisting']:
            break


def transfer(amt, source, destination):
    result = db.accounts.update(
        {'_id': source, 'balance': {'$gte': amt}},
        {'$inc': {'balance': -amt}})
    if not result['updatedExisting']:
        raise InsufficientFundsError(source)
    db.accounts.update(
        {'_id': destination},
        {'$inc': {'balance': amt}})


def check(cond, what):
    if not cond:
        raise AssertionError(what)


db.orders.drop()
db.orders.insert_one({'_id': '11223', 'total': 110.22,
                      'items': [{'sku': '123', 'price': 55.11, 'qty': 2}]})

# Existing line item: positional $inc of its qty and of the total.
increase_qty('11223', '123', 55.11, 1)
o = db.orders.find_one({'_id': '11223'})
check(o['items'] == [{'sku': '123', 'price': 55.11, 'qty': 3}], 'qty of sku 123: %r' % o)
check(abs(o['total'] - 165.33) < 1e-9, 'total after $inc: %r' % o['total'])

# Missing line item: the first update matches nothing, the $push adds it.
increase_qty('11223', '456', 10.0, 2)
o = db.orders.find_one({'_id': '11223'})
check(o['items'][1] == {'sku': '456', 'qty': 2, 'price': 10.0}, 'pushed item: %r' % o)
check(abs(o['total'] - 185.33) < 1e-9, 'total after push: %r' % o['total'])
check(abs(o['total'] - sum(i['price'] * i['qty'] for i in o['items'])) < 1e-9, 'total == sum')

# The naive transfer with the conditional debit.
db.accounts.drop()
db.accounts.insert_many([{'_id': 1, 'balance': 100}, {'_id': 2, 'balance': 0}])
transfer(60, 1, 2)
check(db.accounts.find_one({'_id': 1})['balance'] == 40, 'debited')
check(db.accounts.find_one({'_id': 2})['balance'] == 60, 'credited')
r = db.accounts.update_one({'_id': 1, 'balance': {'$gte': 50}}, {'$inc': {'balance': -50}})
check(r.matched_count == 0 and r.modified_count == 0, 'short funds must match nothing: %r' % r.raw_result)
try:
    transfer(50, 1, 2)
    raise AssertionError('transfer with short funds succeeded')
except InsufficientFundsError:
    pass
check(db.accounts.find_one({'_id': 1})['balance'] == 40, 'balance unchanged after refused transfer')
print('seed003 orders OK')
