package agg

import (
	"reflect"
	"sort"
	"testing"

	"github.com/lodedb/lode/internal/queryshape"
)

// TestEveryStageDecidesTraits walks the registry: every stage must decide
// each of its traits (an explicit no is not the zero value), name its
// explain hook (explainNone for none) and its query-shape form.
func TestEveryStageDecidesTraits(t *testing.T) {
	if len(stageDefs) == 0 {
		t.Fatal("no stage registered")
	}
	for name, def := range stageDefs {
		w := reflect.ValueOf(def.where)
		for i := 0; i < w.NumField(); i++ {
			if d := decision(w.Field(i).Uint()); d != yes && d != no {
				t.Errorf("stage %s: trait %s undecided", name, w.Type().Field(i).Name)
			}
		}
		if def.sources == nil {
			t.Errorf("stage %s: no sources declared (noSources for none)", name)
		}
		if def.explain == nil {
			t.Errorf("stage %s: no explain hook (explainNone for none)", name)
		}
		if def.shape == queryshape.FormUndecided {
			t.Errorf("stage %s: no query-shape form", name)
		}
	}
}

// TestStageTraitsAsBefore pins the traits to the tables the registry
// replaced (checkPlacement's switch, changeStreamFollowers,
// updateStages, apiV1ExcludedStages, the writer and view checks, stageExplain's and queryshape.Stage's
// switches, text.go's ownsMeta and the run loop's text score stripping,
// the server's stages refused over a view), so that moving them changed
// nothing.
func TestStageTraitsAsBefore(t *testing.T) {
	with := func(pick func(*stageDef) bool) []string {
		var out []string
		for n, d := range stageDefs {
			if pick(d) {
				out = append(out, n)
			}
		}
		sort.Strings(out)
		return out
	}
	set := func(names ...string) []string { sort.Strings(names); return names }
	for _, c := range []struct {
		trait string
		pick  func(*stageDef) bool
		want  []string
	}{
		{"first", func(d *stageDef) bool { return d.where.first == yes },
			set("$documents", "$collStats", "$indexStats", "$planCacheStats", "$currentOp", "$queryStats", "$listLocalSessions", "$listSessions", "$geoNear", "$changeStream",
				"$search", "$searchMeta", "$vectorSearch")},
		{"last", func(d *stageDef) bool { return d.where.last == yes }, set("$out", "$merge")},
		{"not in $facet", func(d *stageDef) bool { return d.where.inFacet == no },
			set("$out", "$merge", "$documents", "$collStats", "$indexStats", "$planCacheStats", "$currentOp", "$queryStats", "$listLocalSessions", "$listSessions", "$geoNear", "$facet", "$changeStream",
				"$_internalUnpackBucket", "$_unpackBucket", "$_internalBoundedSort", "$search", "$searchMeta", "$vectorSearch")},
		{"not in $lookup", func(d *stageDef) bool { return d.where.inLookup == no }, set("$out", "$merge", "$changeStream")},
		{"not in $unionWith", func(d *stageDef) bool { return d.where.inUnion == no }, set("$out", "$merge", "$changeStream")},
		{"database level", func(d *stageDef) bool { return d.where.dbLevel == yes },
			set("$documents", "$currentOp", "$queryStats", "$listLocalSessions", "$changeStream")},
		{"admin only", func(d *stageDef) bool { return d.where.adminOnly == yes }, set("$currentOp", "$queryStats")},
		{"after $changeStream", func(d *stageDef) bool { return d.where.afterChangeStream == yes },
			set("$match", "$project", "$addFields", "$set", "$unset", "$replaceRoot", "$replaceWith", "$redact")},
		{"in an update", func(d *stageDef) bool { return d.where.inUpdate == yes },
			set("$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith")},
		{"not in API Version 1", func(d *stageDef) bool { return d.where.apiV1 == no },
			set("$collStats", "$currentOp", "$indexStats", "$planCacheStats", "$listLocalSessions", "$listSessions", "$listSearchIndexes", "$queryStats",
				"$search", "$searchMeta", "$vectorSearch")},
		{"writes", func(d *stageDef) bool { return d.where.writes == yes }, set("$out", "$merge")},
		{"not in a view", func(d *stageDef) bool { return d.where.inView == no },
			set("$out", "$merge", "$changeStream", "$documents", "$currentOp", "$listLocalSessions")},
		{"not over a view", func(d *stageDef) bool { return d.where.overView == no },
			set("$changeStream", "$collStats", "$indexStats", "$planCacheStats")},
		{"owns text meta", func(d *stageDef) bool { return d.where.ownsTextMeta == yes },
			set("$match", "$sort", "$lookup", "$unionWith", "$facet")},
		{"drops text score", func(d *stageDef) bool { return d.where.dropsTextScore == yes }, set("$out", "$merge", "$facet")},
		{"shape filter", func(d *stageDef) bool { return d.shape == shapeFilter }, set("$match")},
		{"shape verbatim", func(d *stageDef) bool { return d.shape == shapeVerbatim }, set("$sort", "$out", "$count", "$unset", "$_internalUnpackBucket", "$_unpackBucket", "$_internalBoundedSort")},
		{"shape number", func(d *stageDef) bool { return d.shape == shapeNumber }, set("$limit", "$skip")},
		{"shape projection", func(d *stageDef) bool { return d.shape == shapeProjection }, set("$project")},
		{"shape args", func(d *stageDef) bool { return d.shape == shapeArgs },
			set("$lookup", "$unionWith", "$graphLookup", "$merge", "$unwind", "$geoNear", "$facet")},
	} {
		if got := with(c.pick); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.trait, got, c.want)
		}
	}
	hooks := map[string]explainHook{"$group": groupExplain, "$bucket": groupExplain, "$sort": sortExplain,
		"$_internalSetWindowFields": windowExplain, "$lookup": lookupExplain, "$graphLookup": lookupExplain}
	none := reflect.ValueOf(explainNone).Pointer()
	for n, d := range stageDefs {
		got := reflect.ValueOf(d.explain).Pointer()
		want := none
		if h, ok := hooks[n]; ok {
			want = reflect.ValueOf(h).Pointer()
		}
		if got != want {
			t.Errorf("stage %s: unexpected explain hook", n)
		}
	}
}
