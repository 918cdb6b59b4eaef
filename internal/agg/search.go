package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// The Atlas Search stages. A mongod 7.0 outside Atlas knows them (a
// pipeline that names one is not an unknown stage, and apiStrict refuses
// them as outside API Version 1) and refuses to run them, as it refuses
// $listSearchIndexes (stats.go): they need Atlas's search engine, which
// Lode does not have. Applications that fall back to $text or $regex
// when Atlas Search is missing recognize mongod's message. Reports of it
// carry the prefix "PlanExecutor error during aggregation :: caused by
// ::", so mongod refuses when the pipeline runs; Lode refuses when it
// parses the stage. The code is $listSearchIndexes's refusal's, whose
// message has the same form.
func init() {
	w := anywhere
	w.first, w.inFacet, w.apiV1 = yes, no, no
	for _, name := range []string{"$search", "$searchMeta", "$vectorSearch"} {
		// Not initial: mongod asks find on the collection for them.
		registerStage(name, stageDef{parse: atlasOnly(name), access: noAccess, sources: noSources,
			where: w, explain: explainNone, shape: shapeExpr})
	}
}

// atlasOnly is the parser of an Atlas-only stage: mongod's refusal.
func atlasOnly(name string) stageParser {
	return func(bsoncore.Value, *ParseContext) ([]stage, error) {
		return nil, errs.New(errs.Location6047401, "%s stage is only allowed on MongoDB Atlas", name)
	}
}
