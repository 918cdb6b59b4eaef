"""Text search through pymongo 3.11: a weighted text index created with
create_index([...TEXT]), $text with a phrase and a negation, textScore in
the projection and sort, an aggregate whose first $match is $text, and
$text as a branch of $or."""
import sys

from pymongo import MongoClient, TEXT
from pymongo.errors import OperationFailure

client = MongoClient(sys.argv[1])
db = client.text_py
db.drop_collection("blog")
blog = db.blog
name = blog.create_index([("content", TEXT), ("keywords", TEXT)], weights={"content": 10, "keywords": 5})
assert name == "content_text_keywords_text", name
blog.insert_many([
    {"_id": 1, "content": "This morning I had a cup of coffee.", "keywords": ["coffee"]},
    {"_id": 2, "content": "Who likes chocolate ice cream for dessert?", "keywords": ["poll"]},
    {"_id": 3, "content": "My favorite flavors are strawberry and chocolate.", "keywords": ["food", "dessert"]},
])
docs = list(blog.find({"$text": {"$search": "chocolate -strawberry"}}))
assert [d["_id"] for d in docs] == [2], docs
docs = list(blog.find({"$text": {"$search": "\"ice cream\""}}))
assert [d["_id"] for d in docs] == [2], docs
# dessert: in 2's content (weight 10; "who" and "for" are stop words, so
# 5 tokens: likes chocolate ice cream dessert -> 10 * (0.5/5 + 0.5)) and
# 3's keywords (weight 5, 1.1 boost for the whole string: 5 * 1.1).
docs = list(blog.find({"$text": {"$search": "dessert"}}, {"score": {"$meta": "textScore"}})
            .sort([("score", {"$meta": "textScore"})]))
assert [d["_id"] for d in docs] == [2, 3], docs
assert abs(docs[0]["score"] - 10 * (0.5 / 5 + 0.5)) < 1e-9, docs
assert abs(docs[1]["score"] - 5 * 1.1) < 1e-9, docs
agg = list(blog.aggregate([
    {"$match": {"$text": {"$search": "coffee"}}},
    {"$project": {"_id": 1, "score": {"$meta": "textScore"}}},
]))
assert len(agg) == 1 and agg[0]["_id"] == 1 and agg[0]["score"] > 5, agg
try:
    blog.create_index([("title", TEXT)])
    raise AssertionError("second text index accepted")
except OperationFailure as e:
    assert e.code == 67, e
# $text as a branch of $or beside an indexed _id branch: the union, and
# no score for the document only the _id branch returns.
docs = list(blog.find({"$or": [{"$text": {"$search": "coffee"}}, {"_id": 3}]}, {"score": {"$meta": "textScore"}})
            .sort([("score", {"$meta": "textScore"})]))
assert [d["_id"] for d in docs] == [1, 3], docs
assert docs[0]["score"] > 0 and "score" not in docs[1], docs
try:
    list(blog.find({"$or": [{"$text": {"$search": "coffee"}}, {"keywords": "poll"}]}))
    raise AssertionError("$text beside an unindexed $or branch accepted")
except OperationFailure as e:
    assert e.code == 291, e
client.drop_database("text_py")
print("text ok")
