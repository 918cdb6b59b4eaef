package crud_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestDocumentSizeLimits checks MongoDB 7.0's 16 MiB user limit on
// writes, through the Go driver: an oversized insert is a BadValue write
// error, an update (or findAndModify) whose result grows past the limit
// fails with 17419, an upsert whose new document does with 17420, and the
// stored document is unchanged.
func TestDocumentSizeLimits(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("limits")
	half := strings.Repeat("x", 9<<20)
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: half}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: half}}}})
	we := testenv.WriteErr(t, err)
	if we.Code != 17419 || we.Message != "Resulting document after update is larger than 16777216" {
		t.Fatalf("update past 16 MiB: %d %q", we.Code, we.Message)
	}
	err = coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: half}}}}).Err()
	if ce := testenv.CmdErr(t, err); ce.Code != 17419 || ce.Message != "Resulting document after update is larger than 16777216" {
		t.Fatalf("findAndModify past 16 MiB: %+v", ce)
	}
	var got bson.M
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["b"] != nil {
		t.Fatalf("failed update must not change the document: %v %v", err, len(got))
	}

	// An insert past the limit: 2 BadValue as a write error (MongoDB 7.0's
	// fixDocumentForInsert); an ordered insert stops there, an unordered
	// one goes on.
	big := bson.D{{Key: "_id", Value: 3}, {Key: "p", Value: strings.Repeat("z", 16<<20)}}
	const bigSize = 16777238
	if raw, _ := bson.Marshal(big); len(raw) != bigSize {
		t.Fatalf("test document is %d bytes", len(raw))
	}
	_, err = coll.InsertMany(c, []any{bson.D{{Key: "_id", Value: 2}}, big, bson.D{{Key: "_id", Value: 4}}})
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[0].Code != 2 ||
		bwe.WriteErrors[0].Message != fmt.Sprintf("object to insert too large. size in bytes: %d, max size: 16777216", bigSize) {
		t.Fatalf("ordered insert with an oversized document: %v", err)
	}
	_, err = coll.InsertMany(c, []any{big, bson.D{{Key: "_id", Value: 5}}}, options.InsertMany().SetOrdered(false))
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 0 || bwe.WriteErrors[0].Code != 2 {
		t.Fatalf("unordered insert with an oversized document: %v", err)
	}
	if n, err := coll.CountDocuments(c, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{2, 3, 4, 5}}}}}); err != nil || n != 2 {
		t.Fatalf("want _id 2 and 5 inserted, got %d (%v)", n, err)
	}
	if _, err := coll.DeleteMany(c, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{2, 5}}}}}); err != nil {
		t.Fatal(err)
	}

	// The upsert's document is built from the filter's equality and the
	// update; each half fits in a command, the sum does not fit in a
	// document.
	part := strings.Repeat("y", 8_390_000)
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 2}, {Key: "p", Value: part}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "q", Value: part}}}}, options.UpdateOne().SetUpsert(true))
	we = testenv.WriteErr(t, err)
	if we.Code != 17420 || we.Message != "Document to upsert is larger than 16777216" {
		t.Fatalf("upsert past 16 MiB: %d %q", we.Code, we.Message)
	}
	if n, err := coll.CountDocuments(c, bson.D{{Key: "_id", Value: 2}}); err != nil || n != 0 {
		t.Fatalf("failed upsert inserted: %d %v", n, err)
	}
}
