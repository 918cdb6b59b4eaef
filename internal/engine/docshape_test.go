package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// nest returns leaf wrapped in levels documents {a: ...}.
func nest(levels int, leaf any) any {
	v := leaf
	for i := 0; i < levels; i++ {
		v = bson.D{{Key: "a", Value: v}}
	}
	return v
}

func mustDoc(t *testing.T, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStorageDepthBoundary checks the depth rule at its boundary without
// the wire layer's shortcut: an element at level 180 is stored, one at
// 181 is not, an empty document at level 181 does not count, and inside
// an _id document an update counts levels from the _id's own fields (as
// storage_validation does).
func TestStorageDepthBoundary(t *testing.T) {
	for _, c := range []struct {
		name   string
		doc    bson.D
		insert errs.Code // 0: accepted
		update errs.Code
	}{
		{"level 180", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: nest(179, 1)}}, 0, 0},
		{"level 181", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: nest(180, 1)}}, errs.Overflow, errs.Overflow},
		{"empty at 181", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: nest(179, bson.D{})}}, 0, 0},
		{"arrays", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{nest(179, 1)}}}, errs.Overflow, errs.Overflow},
		{"_id at 181", bson.D{{Key: "_id", Value: nest(180, 1)}}, errs.Overflow, 0},
		{"_id at 182", bson.D{{Key: "_id", Value: nest(181, 1)}}, errs.Overflow, errs.Overflow},
		{"two _id", bson.D{{Key: "_id", Value: 1}, {Key: "b", Value: 1}, {Key: "_id", Value: 2}}, errs.BadValue, errs.BadValue},
	} {
		d := mustDoc(t, c.doc)
		_, werr := prepareInsert(d, checkDepth)
		if got := codeOf(werr); got != c.insert {
			t.Errorf("%s: insert %v, want code %d", c.name, werr, c.insert)
		}
		if got := codeOf(checkUpdated(d)); got != c.update {
			t.Errorf("%s: update %v, want code %d", c.name, checkUpdated(d), c.update)
		}
	}
}

func codeOf(err error) errs.Code {
	if e, ok := err.(*errs.Error); ok && e != nil {
		return e.Code
	}
	return 0
}
