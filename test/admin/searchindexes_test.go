package admin

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestSearchIndexCommandsOutsideAtlas: the Atlas Search index commands,
// $listSearchIndexes and the search stages fail as they do on a mongod
// 7.0 outside Atlas, also through the Go driver's SearchIndexes helpers:
// the stages are known (not 40324), refused with 6047401, and outside
// the Stable API.
func TestSearchIndexCommandsOutsideAtlas(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	for _, cmd := range []bson.D{
		{{Key: "createSearchIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "definition", Value: bson.D{{Key: "mappings", Value: bson.D{{Key: "dynamic", Value: true}}}}}}}}},
		{{Key: "updateSearchIndex", Value: "c"}, {Key: "name", Value: "default"}, {Key: "definition", Value: bson.D{}}},
		{{Key: "dropSearchIndex", Value: "c"}, {Key: "name", Value: "default"}},
	} {
		_, err := testenv.RunCmd(t, db, cmd)
		e := testenv.WantCmdError(t, err, 115, "CommandNotSupported")
		if e.Message != "Search index commands are only supported with Atlas." {
			t.Errorf("%v: message %q", cmd[0].Key, e.Message)
		}
	}
	_, err := db.Collection("c").SearchIndexes().List(ctx, nil)
	testenv.WantCode(t, "$listSearchIndexes", err, 6047401)
	_, err = db.Collection("c").SearchIndexes().CreateOne(ctx, mongo.SearchIndexModel{Definition: bson.D{}})
	testenv.WantCode(t, "SearchIndexes().CreateOne", err, 115)
	for _, name := range []string{"$search", "$searchMeta", "$vectorSearch"} {
		_, err := db.Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: name, Value: bson.D{{Key: "index", Value: "default"}}}}})
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(6047401) || !se.HasErrorMessage(name+" stage is only allowed on MongoDB Atlas") {
			t.Errorf("%s: %v, want 6047401 %q", name, err, name+" stage is only allowed on MongoDB Atlas")
		}
	}
	// Under apiStrict the stage is refused as outside API Version 1 first.
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$search", Value: bson.D{}}}}},
		{Key: "cursor", Value: bson.D{}}, {Key: "apiVersion", Value: "1"}, {Key: "apiStrict", Value: true}})
	testenv.WantCmdError(t, err, 323, "APIStrictError")
}
