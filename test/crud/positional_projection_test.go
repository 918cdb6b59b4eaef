package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestPositionalProjectionAndOr: the array position a positional
// projection ("b.$") takes comes from an $or only when mongod reads the
// $or as an $in (one path): then it is the first element any branch
// matches; an $or of different fields, like $nor, records none, and the
// projection fails with 51246. A projection ".$" is 5392900. Cases from
// MongoDB's own positional_projection test.
func TestPositionalProjectionAndOr(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("posor")
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{1, 2, 3}},
		{Key: "b", Value: bson.A{4, 5, 6}}}); err != nil {
		t.Fatal(err)
	}
	d1 := func(k string, v any) bson.D { return bson.D{{Key: k, Value: v}} }
	find := func(filter, proj bson.D) (bson.A, error) {
		var got struct {
			B bson.A `bson:"b"`
		}
		err := coll.FindOne(c, filter, options.FindOne().SetProjection(proj)).Decode(&got)
		return got.B, err
	}
	bPos := d1("b.$", 1)
	for _, tc := range []struct {
		filter bson.D
		want   int32
	}{
		{d1("$or", bson.A{d1("a", 2), d1("a", 3)}), 5},
		{d1("$or", bson.A{d1("a", 3), d1("a", 2)}), 5}, // the first element matched, not the first branch
		{d1("a", d1("$in", bson.A{3, 2})), 5},
		{d1("$or", bson.A{d1("a", 3)}), 6},
		{d1("$and", bson.A{d1("a", 1), d1("a", 2), d1("a", 3)}), 6},
	} {
		got, err := find(tc.filter, bPos)
		if err != nil || len(got) != 1 || got[0] != tc.want {
			t.Errorf("%v: b %v (%v), want [%d]", tc.filter, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		filter, proj bson.D
		code         int32
	}{
		{d1("$or", bson.A{d1("a", 1), d1("b", 5)}), d1("a.$", 1), 51246},
		{d1("$or", bson.A{d1("a", 0), d1("b", 5)}), d1("a.$", 1), 51246},
		{d1("$nor", bson.A{d1("a", -1), d1("a", -2)}), d1("a.$", 1), 51246},
		{bson.D{}, d1(".$", 1), 5392900},
	} {
		_, err := find(tc.filter, tc.proj)
		var ce mongo.ServerError
		if !errors.As(err, &ce) || !ce.HasErrorCode(int(tc.code)) {
			t.Errorf("%v %v: %v, want code %d", tc.filter, tc.proj, err, tc.code)
		}
	}
}
