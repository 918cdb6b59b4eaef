package server

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// runCmd dispatches cmd (a bson.D without $db) on db "t".
func runCmd(t *testing.T, s *Server, cmd bson.D) bsoncore.Document {
	t.Helper()
	return runCmdOn(t, s, "t", cmd)
}

// runCmdOn dispatches cmd on db.
func runCmdOn(t *testing.T, s *Server, db string, cmd bson.D) bsoncore.Document {
	t.Helper()
	raw, err := bson.Marshal(append(cmd, bson.E{Key: "$db", Value: db}))
	if err != nil {
		t.Fatal(err)
	}
	return s.dispatch(context.Background(), nil, raw, false)
}

// wantCode fails unless reply is an error with code (0: success).
func wantCode(t *testing.T, what string, reply bsoncore.Document, code int32) {
	t.Helper()
	if code == 0 {
		if reply.Lookup("ok").Double() != 1 {
			t.Fatalf("%s: %v", what, reply)
		}
		if we, err := reply.LookupErr("writeErrors"); err == nil {
			t.Fatalf("%s: write errors %v", what, we)
		}
		return
	}
	if got := reply.Lookup("code").Int32(); reply.Lookup("ok").Double() != 0 || got != code {
		t.Fatalf("%s: got %v, want code %d", what, reply, code)
	}
}

// findByID returns the document of t.c with _id id.
func findByID(t *testing.T, s *Server, id int) bsoncore.Document {
	t.Helper()
	r := runCmd(t, s, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: id}}}})
	docs, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	if len(docs) != 1 {
		t.Fatalf("find _id %d: %v", id, r)
	}
	return docs[0].Document()
}

func isEmptyTS(v bsoncore.Value) bool {
	tt, i, ok := v.TimestampOK()
	return ok && tt == 0 && i == 0
}

// Inserts and replacements fill top-level Timestamp(0, 0) values (not
// _id, not nested ones, not those an update operator writes) unless the
// command carries bypassEmptyTsReplacement: true, as mongod does.
func TestEmptyTimestampReplacement(t *testing.T) {
	s := newTestServer(t)
	empty := bson.Timestamp{}
	doc := func(id int) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "a", Value: empty}, {Key: "n", Value: bson.D{{Key: "b", Value: empty}}}}
	}
	wantCode(t, "insert", runCmd(t, s, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{doc(1)}}}), 0)
	wantCode(t, "insert bypass", runCmd(t, s, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{doc(2), doc(3), doc(4), doc(5)}},
		{Key: "bypassEmptyTsReplacement", Value: true}}), 0)
	wantCode(t, "insert _id", runCmd(t, s, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: empty}}}}}), 0)
	d := findByID(t, s, 1)
	if isEmptyTS(d.Lookup("a")) || !isEmptyTS(d.Lookup("n", "b")) {
		t.Fatalf("plain insert stored %v: want a filled, n.b kept", d)
	}
	if d := findByID(t, s, 2); !isEmptyTS(d.Lookup("a")) {
		t.Fatalf("bypassed insert stored %v", d)
	}
	// Replacement updates fill; $set keeps; bypass keeps.
	repl := bson.D{{Key: "a", Value: empty}}
	wantCode(t, "replace", runCmd(t, s, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 2}}}, {Key: "u", Value: repl}}}}}), 0)
	wantCode(t, "set", runCmd(t, s, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 3}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: repl}}}}}}}), 0)
	wantCode(t, "replace bypass", runCmd(t, s, bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 4}}}, {Key: "u", Value: repl}}}},
		{Key: "bypassEmptyTsReplacement", Value: true}}), 0)
	wantCode(t, "findAndModify replace", runCmd(t, s, bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: 5}}}, {Key: "update", Value: repl}}), 0)
	upsert := func(id int, u any) bson.D {
		return bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: id}}}, {Key: "u", Value: u}, {Key: "upsert", Value: true}}}}}
	}
	wantCode(t, "replacement upsert", runCmd(t, s, upsert(6, repl)), 0)
	wantCode(t, "$set upsert", runCmd(t, s, upsert(7, bson.D{{Key: "$set", Value: repl}})), 0)
	wantCode(t, "pipeline upsert", runCmd(t, s, upsert(8, bson.A{bson.D{{Key: "$set", Value: repl}}})), 0)
	for id, filled := range map[int]bool{2: true, 3: false, 4: false, 5: true, 6: true, 7: false, 8: false} {
		if d := findByID(t, s, id); isEmptyTS(d.Lookup("a")) == filled {
			t.Errorf("_id %d: a = %v, filled want %v", id, d.Lookup("a"), filled)
		}
	}
	wantCode(t, "wrong type", runCmd(t, s, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{doc(9)}},
		{Key: "bypassEmptyTsReplacement", Value: "yes"}}), 14)
}

// create's idIndex is validated: the default _id index is accepted, any
// other is mongod's error or NotImplemented; options whose meaning Lode
// cannot give are NotImplemented.
func TestCreateIdIndexAndOptions(t *testing.T) {
	s := newTestServer(t)
	idx := func(extra ...bson.E) bson.D {
		return append(bson.D{{Key: "v", Value: 2}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "name", Value: "_id_"}}, extra...)
	}
	create := func(name string, opts ...bson.E) bsoncore.Document {
		return runCmd(t, s, append(bson.D{{Key: "create", Value: name}}, opts...))
	}
	wantCode(t, "default idIndex", create("a", bson.E{Key: "idIndex", Value: idx()}), 0)
	wantCode(t, "idIndex with ns and simple collation", create("b", bson.E{Key: "idIndex", Value: idx(bson.E{Key: "ns", Value: "t.b"},
		bson.E{Key: "collation", Value: bson.D{{Key: "locale", Value: "simple"}}})}), 0)
	wantCode(t, "idIndex key", create("c", bson.E{Key: "idIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "name", Value: "_id_"}}}), 2)
	wantCode(t, "idIndex name", create("c", bson.E{Key: "idIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "name", Value: "x"}}}), 2)
	wantCode(t, "idIndex unique", create("c", bson.E{Key: "idIndex", Value: idx(bson.E{Key: "unique", Value: true})}), 197)
	wantCode(t, "idIndex v1", create("c", bson.E{Key: "idIndex", Value: bson.D{{Key: "v", Value: 1}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "name", Value: "_id_"}}}), 238)
	// The idIndex's collation must be the collection's (mongod's BadValue).
	fr := bson.D{{Key: "locale", Value: "fr"}}
	wantCode(t, "idIndex collation on a simple collection", create("c", bson.E{Key: "idIndex", Value: idx(bson.E{Key: "collation", Value: fr})}), 2)
	wantCode(t, "idIndex without the collection's collation", create("c", bson.E{Key: "idIndex", Value: idx()}, bson.E{Key: "collation", Value: fr}), 2)
	wantCode(t, "idIndex with another collation", create("c", bson.E{Key: "idIndex", Value: idx(bson.E{Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}}})}, bson.E{Key: "collation", Value: fr}), 2)
	wantCode(t, "idIndex with the collection's collation", create("idfr", bson.E{Key: "idIndex", Value: idx(bson.E{Key: "collation", Value: fr})}, bson.E{Key: "collation", Value: fr}), 0)
	wantCode(t, "idIndex type", create("c", bson.E{Key: "idIndex", Value: 1}), 14)
	wantCode(t, "autoIndexId false", create("c", bson.E{Key: "autoIndexId", Value: false}), 238)
	wantCode(t, "autoIndexId true", create("d", bson.E{Key: "autoIndexId", Value: true}), 0)
	wantCode(t, "clusteredIndex", create("cl", bson.E{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}}), 0)
	wantCode(t, "clusteredIndex with idIndex", create("c", bson.E{Key: "clusteredIndex", Value: bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}}},
		bson.E{Key: "idIndex", Value: idx()}), 72)
	wantCode(t, "expireAfterSeconds alone", create("c", bson.E{Key: "expireAfterSeconds", Value: 10}), 72)
	wantCode(t, "temp", create("c", bson.E{Key: "temp", Value: true}), 238)
	wantCode(t, "temp false", create("e", bson.E{Key: "temp", Value: false}), 0)
}

// createIndexes' command-level fields: ignoreUnknownIndexOptions drops
// unknown options, collectionUUID must match, v is 2, returnOnStart is
// accepted; hidden and prepareUnique are applied (test/admin checks
// their effect), clustered is refused when true.
func TestCreateIndexesFields(t *testing.T) {
	s := newTestServer(t)
	wantCode(t, "create", runCmd(t, s, bson.D{{Key: "create", Value: "c"}}), 0)
	ix := func(name string, extra ...bson.E) bson.A {
		return bson.A{append(bson.D{{Key: "key", Value: bson.D{{Key: name, Value: 1}}}, {Key: "name", Value: name}}, extra...)}
	}
	ci := func(indexes bson.A, extra ...bson.E) bsoncore.Document {
		return runCmd(t, s, append(bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: indexes}}, extra...))
	}
	wantCode(t, "unknown option", ci(ix("a", bson.E{Key: "bogus", Value: 1})), 197)
	wantCode(t, "ignoreUnknownIndexOptions", ci(ix("a", bson.E{Key: "bogus", Value: 1}), bson.E{Key: "ignoreUnknownIndexOptions", Value: true}), 0)
	wantCode(t, "hidden", ci(ix("b", bson.E{Key: "hidden", Value: true})), 0)
	wantCode(t, "hidden false", ci(ix("b2", bson.E{Key: "hidden", Value: false})), 0)
	wantCode(t, "prepareUnique", ci(ix("c", bson.E{Key: "prepareUnique", Value: true})), 0)
	wantCode(t, "clustered", ci(ix("c2", bson.E{Key: "clustered", Value: true})), 238)
	wantCode(t, "v 2 returnOnStart", ci(ix("d"), bson.E{Key: "v", Value: 2}, bson.E{Key: "returnOnStart", Value: true}, bson.E{Key: "commitQuorum", Value: "votingMembers"}), 0)
	wantCode(t, "v 1", ci(ix("e"), bson.E{Key: "v", Value: 1}), 238)
	r := runCmd(t, s, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "c"}}}})
	infos, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	uuid := infos[0].Document().Lookup("info", "uuid")
	sub, data := uuid.Binary()
	wantCode(t, "collectionUUID", ci(ix("f"), bson.E{Key: "collectionUUID", Value: bson.Binary{Subtype: sub, Data: data}}), 0)
	wantCode(t, "wrong collectionUUID", ci(ix("g"), bson.E{Key: "collectionUUID", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}), 361)
}

// An applyOps create entry's ui becomes the collection's UUID (as
// mongorestore --preserveUUID relies on); one another collection holds
// is refused.
func TestApplyOpsCreateKeepsUUID(t *testing.T) {
	s := newTestServer(t)
	u := bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}
	apply := func(coll string) bsoncore.Document {
		raw, err := bson.Marshal(bson.D{{Key: "applyOps", Value: bson.A{bson.D{{Key: "op", Value: "c"}, {Key: "ns", Value: "t.$cmd"}, {Key: "ui", Value: u},
			{Key: "o", Value: bson.D{{Key: "create", Value: coll}, {Key: "idIndex", Value: bson.D{{Key: "v", Value: 2}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "name", Value: "_id_"}}}}}}}},
			{Key: "$db", Value: "admin"}})
		if err != nil {
			t.Fatal(err)
		}
		return s.dispatch(context.Background(), nil, raw, false)
	}
	wantCode(t, "applyOps create", apply("kept"), 0)
	r := runCmd(t, s, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "kept"}}}})
	infos, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	if _, data := infos[0].Document().Lookup("info", "uuid").Binary(); string(data) != string(u.Data) {
		t.Fatalf("uuid = %x, want %x", data, u.Data)
	}
	wantCode(t, "same UUID again", apply("other"), 238)
}

// The fields insert, update and delete share with mongod 7.0's
// WriteCommandRequestBase: collectionUUID is checked, the time-series
// and encryption fields are refused, bypassEmptyTsReplacement is
// accepted by delete too. getParameter gives authSchemaVersion 5.
func TestWriteCommandBaseFields(t *testing.T) {
	s := newTestServer(t)
	wantCode(t, "create", runCmd(t, s, bson.D{{Key: "create", Value: "c"}}), 0)
	r := runCmd(t, s, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "c"}}}})
	infos, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	sub, data := infos[0].Document().Lookup("info", "uuid").Binary()
	good := bson.E{Key: "collectionUUID", Value: bson.Binary{Subtype: sub, Data: data}}
	bad := bson.E{Key: "collectionUUID", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}
	ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}}}
	upd := bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}}}}
	del := bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}}
	for _, cmd := range []bson.D{ins, upd, del} {
		name := cmd[0].Key
		wantCode(t, name+" wrong collectionUUID", runCmd(t, s, append(cmd, bad)), 361)
		wantCode(t, name+" collectionUUID", runCmd(t, s, append(cmd, good)), 0)
		wantCode(t, name+" isTimeseriesNamespace", runCmd(t, s, append(cmd, bson.E{Key: "isTimeseriesNamespace", Value: true})), 238)
		wantCode(t, name+" encryptionInformation", runCmd(t, s, append(cmd, bson.E{Key: "encryptionInformation", Value: bson.D{}})), 238)
		wantCode(t, name+" bypassEmptyTsReplacement", runCmd(t, s, append(cmd, bson.E{Key: "bypassEmptyTsReplacement", Value: true})), 0)
	}
	r = runCmdOn(t, s, "admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "authSchemaVersion", Value: 1}})
	if v, ok := r.Lookup("authSchemaVersion").Int32OK(); !ok || v != 5 {
		t.Fatalf("getParameter authSchemaVersion: %v", r)
	}
}
