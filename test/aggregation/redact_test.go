package aggregation_test

import (
	"strings"
	"testing"
)

// TestRedactDocsExamples runs the examples of MongoDB's $redact reference
// page through the Go driver, with their documented outputs, and the
// recursion rules mongod applies (document_source_redact.cpp): arrays are
// walked element by element, nested arrays too, scalars in arrays are
// kept, a pruned document leaves its array.
func TestRedactDocsExamples(t *testing.T) {
	t.Parallel()
	db := openDB(t, "redact")
	insertJSON(t, db.Collection("forecasts"), `[{"_id":1,"title":"123 Department Report","tags":["G","STLW"],"year":2014,"subsections":[
		{"subtitle":"Section 1: Overview","tags":["SI","G"],"content":"Section 1: This is the content of section 1."},
		{"subtitle":"Section 2: Analysis","tags":["STLW"],"content":"Section 2: This is the content of section 2."},
		{"subtitle":"Section 3: Budgeting","tags":["TK"],"content":{"text":"Section 3: This is the content of section 3.","tags":["HCS"]}}]}]`)
	insertJSON(t, db.Collection("accounts"), `[{"_id":1,"level":1,"acct_id":"xyz123","cc":{"level":5,"type":"yy","num":0.0,"exp_date":{"$date":"2015-11-01T00:00:00Z"},
		"billing_addr":{"level":5,"addr1":"123 ABC Street","city":"Some City"},
		"shipping_addr":[{"level":3,"addr1":"987 XYZ Ave","city":"Some City"},{"level":3,"addr1":"PO Box 0123","city":"Some City"}]},"status":"A"}]`)
	insertJSON(t, db.Collection("nested"), `[{"_id":1,"level":1,"a":[1,{"level":5,"x":1},[{"level":5},{"level":2,"y":[{"level":5},"s"]}],"t"],"b":{"level":2,"c":{"level":5}}},
		{"_id":2,"level":5,"a":1}]`)
	for _, tc := range []struct {
		name, coll, pipeline, want string
	}{
		{"evaluate access at every document level", "forecasts",
			`[{"$match":{"year":2014}},{"$redact":{"$cond":{"if":{"$gt":[{"$size":{"$setIntersection":["$tags",["STLW","G"]]}},0]},"then":"$$DESCEND","else":"$$PRUNE"}}}]`,
			`[{"_id":1,"title":"123 Department Report","tags":["G","STLW"],"year":2014,"subsections":[
				{"subtitle":"Section 1: Overview","tags":["SI","G"],"content":"Section 1: This is the content of section 1."},
				{"subtitle":"Section 2: Analysis","tags":["STLW"],"content":"Section 2: This is the content of section 2."}]}]`},
		{"exclude all fields at a given level", "accounts",
			`[{"$match":{"status":"A"}},{"$redact":{"$cond":{"if":{"$eq":["$level",5]},"then":"$$PRUNE","else":"$$DESCEND"}}}]`,
			`[{"_id":1,"level":1,"acct_id":"xyz123","status":"A"}]`},
		{"$$KEEP keeps the whole document", "accounts",
			`[{"$redact":{"$cond":{"if":{"$eq":["$level",5]},"then":"$$PRUNE","else":"$$KEEP"}}},{"$project":{"cc.level":1}}]`,
			`[{"_id":1,"cc":{"level":5}}]`},
		{"arrays and nested arrays", "nested",
			`[{"$redact":{"$cond":[{"$eq":["$level",5]},"$$PRUNE","$$DESCEND"]}}]`,
			`[{"_id":1,"level":1,"a":[1,[{"level":2,"y":["s"]}],"t"],"b":{"level":2}}]`},
		{"$$ROOT is the input document", "nested",
			`[{"$redact":{"$cond":[{"$eq":["$level","$$ROOT.level"]},"$$DESCEND","$$PRUNE"]}}]`,
			`[{"_id":1,"level":1,"a":[1,[],"t"]},{"_id":2,"level":5,"a":1}]`},
		{"the variables are strings", "nested",
			`[{"$match":{"_id":2}},{"$redact":"keep"}]`,
			`[{"_id":2,"level":5,"a":1}]`},
		{"variables stay usable after $redact", "nested",
			`[{"$match":{"_id":2}},{"$redact":"$$KEEP"},{"$redact":{"$cond":[true,"$$PRUNE","$$KEEP"]}}]`,
			`[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := aggJS(t, db.Collection(tc.coll), tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			wantJS(t, got, tc.want)
		})
	}
	// Errors: any other result is 17053; the variables exist only inside
	// $redact (17276 elsewhere, at parse time).
	for _, tc := range []struct {
		name, pipeline string
		code           int32
	}{
		{"other result", `[{"$redact":"$level"}]`, 17053},
		{"missing result", `[{"$redact":"$nothing"}]`, 17053},
		{"$$KEEP outside $redact", `[{"$project":{"x":"$$KEEP"}}]`, 17276},
		{"$$PRUNE outside $redact", `[{"$redact":"$$KEEP"},{"$set":{"x":"$$PRUNE"}}]`, 17276},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := aggJS(t, db.Collection("nested"), tc.pipeline)
			wantServerCode(t, err, tc.code)
		})
	}
	_, err := aggJS(t, db.Collection("nested"), `[{"$redact":"$level"}]`)
	if err == nil || !strings.Contains(err.Error(), "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned 1") {
		t.Fatalf("17053 message: %v", err)
	}
	_, err = aggJS(t, db.Collection("nested"), `[{"$redact":"$nothing"}]`)
	if err == nil || !strings.Contains(err.Error(), "but returned MISSING") {
		t.Fatalf("17053 message for a missing value: %v", err)
	}
}
