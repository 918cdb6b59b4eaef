package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/storage"
)

// Index entries store type bits, so a key decodes to its original type,
// and an update that only changes a value's numeric type rewrites them.
func TestIndexEntryTypeBits(t *testing.T) {
	e := openTest(t, "")
	if _, err := e.CreateIndex("db", "t", IndexSpec{Key: D(t, bson.D{{Key: "a", Value: -1}})}); err != nil {
		t.Fatal(err)
	}
	insert(t, e, "db", "t", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: int64(7)}})
	decodeA := func() bsoncore.Type {
		t.Helper()
		c := e.cat.Load().lookup("db", "t")
		cur, err := storage.NewIndexCursor(e.db.Reader(), c.Indexes[1].ID, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close()
		ks, rid, tb, ok := cur.Next()
		if !ok || rid != 1 {
			t.Fatalf("no entry: %v", cur.Err())
		}
		vals, err := keystring.Decode(ks, []bool{true}, tb)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, more := cur.Next(); more {
			t.Fatal("stale entry left behind")
		}
		return vals[0].Type
	}
	if got := decodeA(); got != bsoncore.TypeInt64 {
		t.Fatalf("decoded type %v, want int64", got)
	}
	res, err := e.Update(ctx, "db", "t", []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 7.0}}}})}}, WriteOptions{})
	if err != nil || res.NModified != 1 {
		t.Fatalf("update: %+v %v", res, err)
	}
	if got := decodeA(); got != bsoncore.TypeDouble {
		t.Fatalf("after update decoded type %v, want double", got)
	}
}
