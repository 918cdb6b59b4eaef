package clients

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestToolsDumpRestoreText: mongodump saves the text index in its stored
// form (weights, default_language, language_override, textIndexVersion)
// and mongorestore rebuilds it, so $text works on the copy.
func TestToolsDumpRestoreText(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongorestore")
	s := startServer(t)
	c := connect(t, s)
	ctx := context.Background()
	src := c.Database("tsrc").Collection("posts")
	if _, err := src.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "title", Value: "text"}, {Key: "body", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "title", Value: "Running shoes"}, {Key: "language", Value: "english"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "body", Value: "Le chat mange"}, {Key: "language", Value: "french"}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mongodump", "--db", "tsrc", "-o", dir},
		{"mongorestore", "--nsFrom", "tsrc.*", "--nsTo", "tdst.*", dir},
	} {
		out, err := runTool(t, tools, args[0], append([]string{"--uri", s.uri()}, args[1:]...)...)
		if err != nil || strings.Contains(out, "Failed") {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	dst := c.Database("tdst").Collection("posts")
	cur, err := dst.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sp := range specs {
		if sp.Lookup("name").StringValue() == "title_text_body_text" {
			found = true
			if w := sp.Lookup("weights").Document().String(); w != `{"body": {"$numberInt":"1"},"title": {"$numberInt":"1"}}` {
				t.Errorf("restored weights %s", w)
			}
		}
	}
	if !found {
		t.Fatalf("restored indexes: %v", specs)
	}
	for search, want := range map[string]int32{"run": 1, "chat": 2} {
		var d bson.M
		if err := dst.FindOne(ctx, bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: search}}}}).Decode(&d); err != nil || d["_id"] != want {
			t.Errorf("%q on the copy: %v %v, want _id %d", search, d, err, want)
		}
	}
}
