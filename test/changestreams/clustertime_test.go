package changestreams

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestClusterTimeAndReadConcern: operationTime after a write is at or
// after the write's oplog timestamp; afterClusterTime waits for it and
// refuses a time in the future; atClusterTime serves the current time and
// refuses one that later writes have passed (Lode keeps no history).
func TestClusterTimeAndReadConcern(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	res, err := testenv.RunCmd(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	opT, opI := res.Lookup("operationTime").Timestamp()
	ctT, ctI := res.Lookup("$clusterTime", "clusterTime").Timestamp()
	if opT == 0 || ctT != opT || ctI != opI {
		t.Fatalf("operationTime %d,%d clusterTime %d,%d", opT, opI, ctT, ctI)
	}
	var entry bson.Raw
	if err := db.Client().Database("local").Collection("oplog.rs").FindOne(ctx, bson.D{{Key: "ns", Value: "test.c"}, {Key: "op", Value: "i"}}).Decode(&entry); err == nil {
		et, ei := entry.Lookup("ts").Timestamp()
		if et > opT || (et == opT && ei > opI) {
			t.Fatalf("insert stamped %d,%d after the reply's operationTime %d,%d", et, ei, opT, opI)
		}
	}
	after := func(t, i uint32) bson.D {
		return bson.D{{Key: "afterClusterTime", Value: bson.Timestamp{T: t, I: i}}}
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: after(opT, opI)}}); err != nil {
		t.Fatalf("afterClusterTime at the write: %v", err)
	}
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: after(opT+100, 0)}})
	testenv.WantCode(t, "afterClusterTime in the future", err, 72)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: bson.D{{Key: "afterClusterTime", Value: 5}}}})
	testenv.WantCode(t, "afterClusterTime not a timestamp", err, 14)

	at := func(t, i uint32) bson.D {
		return bson.D{{Key: "level", Value: "snapshot"}, {Key: "atClusterTime", Value: bson.Timestamp{T: t, I: i}}}
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: at(opT, opI)}}); err != nil {
		t.Fatalf("atClusterTime at the newest write: %v", err)
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}}}}}); err != nil {
		t.Fatal(err)
	}
	// The time was served, so Lode holds its snapshot: a read at it
	// still sees the data as of then, without the later write.
	r, err := testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: at(opT, opI)}})
	testenv.WantOK(t, r, err)
	if n := len(testenv.FirstBatch(t, r)); n != 1 {
		t.Fatalf("atClusterTime before a later write: %d documents, want the snapshot's 1", n)
	}
	// A past time never served has no snapshot.
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: at(opT-1, 0)}})
	testenv.WantCode(t, "atClusterTime never served, before a later write", err, 239)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: bson.D{{Key: "atClusterTime", Value: bson.Timestamp{T: opT, I: opI}}}}})
	testenv.WantCode(t, "atClusterTime without level snapshot", err, 72)
}
