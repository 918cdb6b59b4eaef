package aggregation_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// indexNames lists a collection's indexes as "name unique" strings.
func indexNames(t *testing.T, coll *mongo.Collection) []string {
	t.Helper()
	cur, err := coll.Indexes().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.M
	if err := cur.All(context.Background(), &specs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range specs {
		n := s["name"].(string)
		if u, _ := s["unique"].(bool); u {
			n += " unique"
		}
		out = append(out, n)
	}
	return out
}

// TestOutKeepsIndexes checks that $out replacing an existing collection
// keeps its indexes, that a result violating one of its unique indexes
// fails with 11000 and leaves the old collection intact, and that a
// capped target is refused with 17152.
func TestOutKeepsIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t, "shop")
	src, dst := db.Collection("src"), db.Collection("dst")
	insertJSON(t, dst, `[{"_id":1,"sku":"old","qty":1}]`)
	if _, err := dst.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "sku", Value: 1}}, Options: options.Index().SetUnique(true)},
		{Keys: bson.D{{Key: "qty", Value: -1}}},
	}); err != nil {
		t.Fatal(err)
	}
	insertJSON(t, src, `[{"_id":1,"sku":"a","qty":5},{"_id":2,"sku":"b","qty":7},{"_id":3,"sku":"a","qty":9}]`)
	if _, err := aggJS(t, src, `[{"$match":{"qty":{"$lt":8}}},{"$out":"dst"}]`); err != nil {
		t.Fatal(err)
	}
	got, err := aggJS(t, dst, `[{"$sort":{"_id":1}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":1,"sku":"a","qty":5},{"_id":2,"sku":"b","qty":7}]`)
	want := []string{"_id_", "sku_1 unique", "qty_-1"}
	if names := indexNames(t, dst); len(names) != 3 || names[0] != want[0] || names[1] != want[1] || names[2] != want[2] {
		t.Fatalf("indexes after $out: %v, want %v", names, want)
	}
	// Two documents with sku "a" violate the kept unique index.
	_, err = aggJS(t, src, `[{"$out":"dst"}]`)
	wantServerCode(t, err, 11000)
	got, err = aggJS(t, dst, `[{"$sort":{"_id":1}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":1,"sku":"a","qty":5},{"_id":2,"sku":"b","qty":7}]`)
	if names := indexNames(t, dst); len(names) != 3 {
		t.Fatalf("indexes after failed $out: %v", names)
	}
	// No temporary collection is left behind.
	names, err := db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 {
		t.Fatalf("collections after $out: %v", names)
	}
	// A capped target.
	if err := db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)); err != nil {
		t.Fatal(err)
	}
	_, err = aggJS(t, src, `[{"$out":"capped"}]`)
	wantServerCode(t, err, 17152)
}

// TestMergeModes checks $merge's whenMatched and whenNotMatched modes and
// the unique index 'on' needs (51183), following MongoDB's $merge page.
func TestMergeModes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t, "shop")
	src := db.Collection("src")
	insertJSON(t, src, `[{"_id":1,"sku":"a","qty":10},{"_id":2,"sku":"c","qty":30}]`)
	reset := func(t *testing.T) *mongo.Collection {
		t.Helper()
		dst := db.Collection("dst")
		if err := dst.Drop(ctx); err != nil {
			t.Fatal(err)
		}
		insertJSON(t, dst, `[{"_id":1,"sku":"a","qty":1,"note":"old"},{"_id":3,"sku":"b","qty":2}]`)
		return dst
	}
	merge := func(spec string) string { return `[{"$merge":` + spec + `}]` }
	for _, tc := range []struct {
		name, spec, want string
		code             int32
	}{
		{"replace/insert", `{"into":"dst","whenMatched":"replace","whenNotMatched":"insert"}`,
			`[{"_id":1,"sku":"a","qty":10},{"_id":2,"sku":"c","qty":30},{"_id":3,"sku":"b","qty":2}]`, 0},
		{"merge/insert (default)", `{"into":"dst"}`,
			`[{"_id":1,"sku":"a","qty":10,"note":"old"},{"_id":2,"sku":"c","qty":30},{"_id":3,"sku":"b","qty":2}]`, 0},
		{"keepExisting/insert", `{"into":"dst","whenMatched":"keepExisting"}`,
			`[{"_id":1,"sku":"a","qty":1,"note":"old"},{"_id":2,"sku":"c","qty":30},{"_id":3,"sku":"b","qty":2}]`, 0},
		{"replace/discard", `{"into":"dst","whenMatched":"replace","whenNotMatched":"discard"}`,
			`[{"_id":1,"sku":"a","qty":10},{"_id":3,"sku":"b","qty":2}]`, 0},
		{"fail on match", `{"into":"dst","whenMatched":"fail","whenNotMatched":"insert"}`, ``, 11000},
		{"fail on no match", `{"into":"dst","whenMatched":"replace","whenNotMatched":"fail"}`, ``, 13113},
		{"on without an index", `{"into":"dst","on":"sku"}`, ``, 51183},
		{"on a missing collection", `{"into":"nowhere","on":"sku"}`, ``, 51183},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := reset(t)
			_, err := aggJS(t, src, merge(tc.spec))
			if tc.code != 0 {
				wantServerCode(t, err, tc.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := aggJS(t, dst, `[{"$sort":{"_id":1}}]`)
			if err != nil {
				t.Fatal(err)
			}
			wantJS(t, got, tc.want)
		})
	}
	// 'on' must name exactly the fields of a unique, non-partial index.
	dst := reset(t)
	if _, err := dst.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "sku", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	_, err := aggJS(t, src, merge(`{"into":"dst","on":"sku"}`))
	wantServerCode(t, err, 51183)
	if _, err := dst.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "sku", Value: 1}, {Key: "qty", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	_, err = aggJS(t, src, merge(`{"into":"dst","on":"sku"}`))
	wantServerCode(t, err, 51183)
	if _, err := dst.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "sku", Value: -1}}, Options: options.Index().SetUnique(true).SetName("sku_unique")}); err != nil {
		t.Fatal(err)
	}
	if _, err := aggJS(t, src, `[{"$project":{"_id":0}},{"$merge":{"into":"dst","on":"sku","whenMatched":"merge","whenNotMatched":"insert"}}]`); err != nil {
		t.Fatal(err)
	}
	got, err := aggJS(t, dst, `[{"$sort":{"sku":1}},{"$project":{"_id":0}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"sku":"a","qty":10,"note":"old"},{"sku":"b","qty":2},{"sku":"c","qty":30}]`)
}
