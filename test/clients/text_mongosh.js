// Text search through mongosh: createIndex with "text", find with $text
// sorted by textScore (the $text reference page's articles), the index as
// getIndexes lists it, and $text's error without a text index.
const d = db.getSiblingDB("text_sh");
function check(cond, what) { if (!cond) throw new Error(what); }
d.dropDatabase();
check(d.articles.createIndex({ subject: "text" }) === "subject_text", "createIndex");
d.articles.insertMany([
  { _id: 1, subject: "coffee", author: "xyz", views: 50 },
  { _id: 2, subject: "Coffee Shopping", author: "efg", views: 5 },
  { _id: 3, subject: "Baking a cake", author: "abc", views: 90 },
  { _id: 4, subject: "baking", author: "xyz", views: 100 },
  { _id: 5, subject: "Café Con Leche", author: "abc", views: 200 },
  { _id: 6, subject: "Сырники", author: "jkl", views: 80 },
  { _id: 7, subject: "coffee and cream", author: "efg", views: 10 },
  { _id: 8, subject: "Cafe con Leche", author: "xyz", views: 10 },
]);
const top = d.articles.find({ $text: { $search: "coffee" } }, { score: { $meta: "textScore" } })
  .sort({ score: { $meta: "textScore" } }).limit(2).toArray();
check(top.length === 2 && top[0]._id === 1 && top[0].score === 1 && top[1].score === 0.75, "top 2: " + EJSON.stringify(top));
const cake = d.articles.findOne({ $text: { $search: "cake" } }, { score: { $meta: "textScore" } });
check(cake._id === 3 && cake.score === 0.75, "cake: " + EJSON.stringify(cake));
check(d.articles.countDocuments({ $text: { $search: "coffee -shop" } }) === 2, "negated count");
const ix = d.articles.getIndexes().filter((i) => i.name === "subject_text")[0];
check(ix.key._fts === "text" && ix.key._ftsx === 1 && ix.weights.subject === 1 &&
  ix.default_language === "english" && ix.language_override === "language" && ix.textIndexVersion === 3,
  "getIndexes: " + EJSON.stringify(ix));
let code = 0;
try { d.other.insertOne({ a: 1 }); d.other.find({ $text: { $search: "x" } }).toArray(); } catch (e) { code = e.code; }
check(code === 27, "no text index: " + code);
d.dropDatabase();
print("text OK");
