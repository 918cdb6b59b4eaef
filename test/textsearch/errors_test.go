package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestQueryErrors checks mongod 7.0's codes for misplaced or malformed
// $text and textScore.
func TestQueryErrors(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	_, db := testenv.Open(t)
	plain := db.Collection("plain")
	if _, err := plain.InsertOne(ctx, bson.D{{Key: "a", Value: "coffee"}}); err != nil {
		t.Fatal(err)
	}
	sortScore := bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}
	cases := []struct {
		name   string
		run    func() error
		code   int32
		cname  string
		errmsg string
	}{
		{"no text index", func() error { _, err := plain.Find(ctx, textFilter("coffee")); return err }, 27, "IndexNotFound", "text index required for $text query"},
		{"two $text", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "$and", Value: bson.A{textFilter("a"), textFilter("b")}}})
			return err
		}, 2, "BadValue", "Too many text expressions"},
		{"$text in $nor", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "$nor", Value: bson.A{textFilter("a")}}})
			return err
		}, 2, "BadValue", "text expression not allowed in nor"},
		{"$text in $elemMatch", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: textFilter("a")}}}})
			return err
		}, 2, "BadValue", "$text can only be applied to the top-level document"},
		{"$search not a string", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: 1}}}})
			return err
		}, 14, "TypeMismatch", "$search requires a string value"},
		{"extra field", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "a"}, {Key: "x", Value: 1}}}})
			return err
		}, 2, "BadValue", "extra fields in $text"},
		{"unknown language", func() error {
			_, err := c.Find(ctx, textFilter("a", bson.E{Key: "$language", Value: "klingon"}))
			return err
		}, 2, "BadValue", `unsupported language: "klingon" for text index version 3`},
		{"score sort without $text", func() error {
			_, err := c.Find(ctx, bson.D{}, options.Find().SetSort(sortScore))
			return err
		}, 40218, "Location40218", "query requires text score metadata, but it is not available"},
		{"score projection without $text", func() error {
			_, err := c.Find(ctx, bson.D{}, options.Find().SetProjection(scoreProj))
			return err
		}, 40218, "Location40218", "query requires text score metadata, but it is not available"},
		{"unknown $meta projection", func() error {
			_, err := c.Find(ctx, textFilter("a"), options.Find().SetProjection(bson.D{{Key: "s", Value: bson.D{{Key: "$meta", Value: "bogus"}}}}))
			return err
		}, 17308, "Location17308", "Unsupported argument to $meta: bogus"},
		{"validator with $text", func() error {
			_, err := testenv.RunCmd(t, c.Database(), bson.D{{Key: "create", Value: "v"}, {Key: "validator", Value: textFilter("a")}})
			return err
		}, 2, "BadValue", "$text is not allowed in this context"},
		{"partial index with $text", func() error {
			_, err := testenv.RunCmd(t, c.Database(), bson.D{{Key: "createIndexes", Value: "articles"}, {Key: "indexes", Value: bson.A{bson.D{
				{Key: "key", Value: bson.D{{Key: "views", Value: 1}}}, {Key: "name", Value: "p"}, {Key: "partialFilterExpression", Value: textFilter("a")}}}}})
			return err
		}, 2, "BadValue", "$text is not allowed in this context"},
		{"hint of another index is refused", func() error {
			_, err := c.Find(ctx, textFilter("a"), options.Find().SetHint("_id_"))
			return err
		}, 238, "NotImplemented", ""},
		{"returnKey is refused", func() error {
			_, err := c.Find(ctx, textFilter("a"), options.Find().SetReturnKey(true))
			return err
		}, 238, "NotImplemented", ""},
		{"$text in $or beside an unindexed branch", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "$or", Value: bson.A{textFilter("a"), bson.D{{Key: "views", Value: 1}}}}})
			return err
		}, 291, "NoQueryExecutionPlans", "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well."},
		{"textScore in findAndModify fields is refused", func() error {
			return c.FindOneAndUpdate(ctx, textFilter("coffee"), bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}},
				options.FindOneAndUpdate().SetProjection(scoreProj)).Err()
		}, 238, "NotImplemented", ""},
		{"a hint with $text in $or is refused", func() error {
			_, err := c.Find(ctx, bson.D{{Key: "$or", Value: bson.A{textFilter("a"), bson.D{{Key: "_id", Value: 1}}}}},
				options.Find().SetHint("subject_text"))
			return err
		}, 238, "NotImplemented", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ce := testenv.WantCmdError(t, tc.run(), tc.code, tc.cname)
			if tc.errmsg != "" && ce.Message != tc.errmsg {
				t.Fatalf("errmsg %q, want %q", ce.Message, tc.errmsg)
			}
		})
	}
}
