package agg_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestFusedDateParts checks a $project of $year, $month and $dayOfMonth
// of one date folded into the $group after it (the date broken down
// once for the three) against the same stages kept apart (a nested
// $addFields between them stops the folding): dates before 1970 and on
// day boundaries, timestamps and ObjectIds, null and missing dates, a
// timezone on one part, another date field, and the error of a date
// that is not one.
func TestFusedDateParts(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "d", `[
		{"_id": 1, "t": {"$date": "2000-10-01T00:00:00Z"}, "u": {"$date": "1969-12-31T23:59:59.999Z"}, "p": "a"},
		{"_id": 2, "t": {"$date": "2000-10-01T23:59:59.999Z"}, "u": {"$date": "1970-01-01T00:00:00Z"}, "p": "a"},
		{"_id": 3, "t": {"$date": "2000-10-02T00:00:00Z"}, "u": {"$date": "1900-02-28T23:00:00Z"}, "p": "b"},
		{"_id": 4, "t": {"$date": "1969-12-31T23:59:59.999Z"}, "u": {"$date": "2000-02-29T12:00:00Z"}, "p": "a"},
		{"_id": 5, "t": {"$date": "1969-12-31T00:00:00Z"}, "p": "b"},
		{"_id": 6, "t": null, "u": {"$date": "2000-10-01T00:00:00Z"}, "p": "a"},
		{"_id": 7, "p": "a"},
		{"_id": 8, "t": {"$timestamp": {"t": 970358400, "i": 1}}, "p": "b"},
		{"_id": 9, "t": {"$oid": "39d67f800000000000000000"}, "p": "b"},
		{"_id": 10, "t": {"$date": "2000-10-01T12:00:00Z"}, "u": null, "p": "a"},
		{"_id": 11, "t": {"$date": "0001-01-01T00:00:00Z"}, "p": "a"},
		{"_id": 12, "t": {"$date": {"$numberLong": "253402300800000"}}, "p": "a"}
	]`)
	project := `{"$project": {"p": 1, "y": {"$year": "$t"}, "m": {"$month": "$t"}, "x": {"$hour": "$t"},
		"d": {"$dayOfMonth": "$t"}, "y2": {"$year": "$t"}, "uy": {"$year": "$u"}, "ud": {"$dayOfMonth": ["$u"]},
		"dz": {"$dayOfMonth": {"date": "$t", "timezone": "+05:30"}}}}`
	group := `{"$group": {"_id": {"p": "$p", "y": "$y", "m": "$m", "d": "$d"}, "n": {"$sum": 1},
		"x": {"$push": "$x"}, "y2": {"$push": "$y2"}, "uy": {"$push": "$uy"}, "ud": {"$push": "$ud"}, "dz": {"$push": "$dz"}}}`
	apart := `{"$addFields": {"zz.a": 1}}`
	fused, err := runPipeline(t, cat, "d", `[`+project+`,`+group+`]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	kept, err := runPipeline(t, cat, "d", `[`+project+`,`+apart+`,`+group+`]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fused) != len(kept) || len(fused) < 8 {
		t.Fatalf("%d groups folded, %d apart", len(fused), len(kept))
	}
	for i := range fused {
		if f, k := canonical(t, bson.Raw(fused[i])), canonical(t, bson.Raw(kept[i])); f != k {
			t.Fatalf("group %d folded:\n%s\napart:\n%s", i, f, k)
		}
	}
	insert(t, cat, "d", `[{"_id": 13, "t": "2000-10-01", "p": "a"}]`)
	_, errFused := runPipeline(t, cat, "d", `[`+project+`,`+group+`]`, runOpts{})
	_, errKept := runPipeline(t, cat, "d", `[`+project+`,`+apart+`,`+group+`]`, runOpts{})
	wantCode(t, errFused, 16006)
	if errFused.Error() != errKept.Error() {
		t.Fatalf("folded: %v, apart: %v", errFused, errKept)
	}
}
