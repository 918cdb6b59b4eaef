// db.coll.stats(), db.stats() and `show dbs` sizes in mongosh: not 0 for
// non-empty data even while it is all in Pebble's memtable.
const c = db.getSiblingDB("test").sizes;
const docs = [];
for (let i = 0; i < 2000; i++) docs.push({ _id: i, s: "0123456789", n: i });
c.insertMany(docs);
c.createIndex({ s: 1 });

const st = c.stats();
if (!(st.storageSize > 0) || !(st.totalIndexSize > 0)) throw new Error("zero sizes: " + tojson(st));
if (!(st.indexSizes._id_ >= 2000 * 16) || !(st.indexSizes.s_1 >= 2000 * 16)) throw new Error("index sizes: " + tojson(st.indexSizes));
if (st.totalIndexSize !== st.indexSizes._id_ + st.indexSizes.s_1) throw new Error("totalIndexSize is not the sum: " + tojson(st));
if (st.totalSize !== st.storageSize + st.totalIndexSize) throw new Error("totalSize: " + tojson(st));
if (st.count !== 2000 || st.nindexes !== 2) throw new Error("count/nindexes: " + tojson(st));

// The _id_ index grows with the count.
const more = [];
for (let i = 2000; i < 4000; i++) more.push({ _id: i, s: "x", n: i });
c.insertMany(more);
const st2 = c.stats();
if (!(st2.indexSizes._id_ > st.indexSizes._id_)) throw new Error("_id_ did not grow: " + st.indexSizes._id_ + " -> " + st2.indexSizes._id_);

const ds = db.getSiblingDB("test").stats();
if (!(ds.indexSize > 0) || !(ds.storageSize > 0)) throw new Error("db.stats(): " + tojson(ds));

const dbs = db.adminCommand({ listDatabases: 1 });
const t = dbs.databases.find(d => d.name === "test");
if (!t || !(t.sizeOnDisk > 0) || !(dbs.totalSize > 0)) throw new Error("listDatabases: " + tojson(dbs));
print("ops stats OK " + t.sizeOnDisk);
