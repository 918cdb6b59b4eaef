package query

import (
	"testing"
)

func TestProjectionDocumented(t *testing.T) {
	// "Project Fields to Return from Query"
	journal := `{"_id": 1, "item": "journal", "status": "A", "size": {"h": 14, "w": 21, "uom": "cm"}, "instock": [{"warehouse": "A", "qty": 5}, {"warehouse": "C", "qty": 15}]}`
	// "$slice (projection)"
	post := `{"_id": 1, "title": "Bagels are not croissants.", "comments": [{"comment": "0. true"}, {"comment": "1. croissants aren't bagels."}]}`
	nums := `{"_id": 1, "a": [1, 2, 3, 4, 5]}`
	cases := []struct {
		doc, proj, want string
	}{
		{journal, `{"item": 1, "status": 1}`, `{"_id": 1, "item": "journal", "status": "A"}`},
		{journal, `{"status": 1, "item": 1}`, `{"_id": 1, "item": "journal", "status": "A"}`},
		{journal, `{"item": 1, "status": 1, "_id": 0}`, `{"item": "journal", "status": "A"}`},
		{journal, `{"status": 0, "instock": 0}`, `{"_id": 1, "item": "journal", "size": {"h": 14, "w": 21, "uom": "cm"}}`},
		{journal, `{"item": 1, "status": 1, "size.uom": 1}`, `{"_id": 1, "item": "journal", "status": "A", "size": {"uom": "cm"}}`},
		{journal, `{"item": 1, "status": 1, "size": {"uom": 1}}`, `{"_id": 1, "item": "journal", "status": "A", "size": {"uom": "cm"}}`},
		{journal, `{"size.uom": 0}`, `{"_id": 1, "item": "journal", "status": "A", "size": {"h": 14, "w": 21}, "instock": [{"warehouse": "A", "qty": 5}, {"warehouse": "C", "qty": 15}]}`},
		{journal, `{"item": 1, "status": 1, "instock.qty": 1}`, `{"_id": 1, "item": "journal", "status": "A", "instock": [{"qty": 5}, {"qty": 15}]}`},
		{journal, `{"item": 1, "status": 1, "instock": {"$slice": -1}}`, `{"_id": 1, "item": "journal", "status": "A", "instock": [{"warehouse": "C", "qty": 15}]}`},
		{journal, `{"_id": 0}`, `{"item": "journal", "status": "A", "size": {"h": 14, "w": 21, "uom": "cm"}, "instock": [{"warehouse": "A", "qty": 5}, {"warehouse": "C", "qty": 15}]}`},
		{journal, `{"_id": 1}`, `{"_id": 1}`},
		{journal, `{}`, journal},
		{journal, `{"item": 1, "label": "x", "n": {"$literal": 1}}`, `{"_id": 1, "item": "journal", "label": "x", "n": 1}`},
		{journal, `{"_id": 0, "w": "$size.w"}`, `{"w": 21}`},
		{journal, `{"missing.x": 1, "_id": 0}`, `{}`},
		{journal, `{"instock.qty": 0, "_id": 0, "item": 0, "status": 0, "size": 0}`, `{"instock": [{"warehouse": "A"}, {"warehouse": "C"}]}`},
		// $slice
		{post, `{"comments": {"$slice": 1}}`, `{"_id": 1, "title": "Bagels are not croissants.", "comments": [{"comment": "0. true"}]}`},
		{post, `{"comments": {"$slice": [1, 1]}}`, `{"_id": 1, "title": "Bagels are not croissants.", "comments": [{"comment": "1. croissants aren't bagels."}]}`},
		{post, `{"comments": {"$slice": 1}, "title": 0}`, `{"_id": 1, "comments": [{"comment": "0. true"}]}`},
		{nums, `{"a": {"$slice": -2}}`, `{"_id": 1, "a": [4, 5]}`},
		{nums, `{"a": {"$slice": [-3, 2]}}`, `{"_id": 1, "a": [3, 4]}`},
		{nums, `{"a": {"$slice": [-10, 2]}}`, `{"_id": 1, "a": [1, 2]}`},
		{nums, `{"a": {"$slice": [10, 2]}}`, `{"_id": 1, "a": []}`},
		{nums, `{"a": {"$slice": 10}}`, `{"_id": 1, "a": [1, 2, 3, 4, 5]}`},
		{`{"_id": 1, "a": [{"b": [1, 2, 3]}, 7, {"b": [4, 5]}]}`, `{"a.b": {"$slice": 1}}`, `{"_id": 1, "a": [{"b": [1]}, 7, {"b": [4]}]}`},
		{`{"_id": 1, "a": "x"}`, `{"a": {"$slice": 1}}`, `{"_id": 1, "a": "x"}`},
		// arrays of embedded documents and nested arrays in inclusion
		{`{"_id": 1, "a": [{"b": 1, "c": 2}, 3, [{"b": 4, "c": 5}]]}`, `{"a.b": 1}`, `{"_id": 1, "a": [{"b": 1}, [{"b": 4}]]}`},
		{`{"_id": 1, "a": [{"b": 1, "c": 2}, 3, [{"b": 4, "c": 5}]]}`, `{"a.b": 0}`, `{"_id": 1, "a": [{"c": 2}, 3, [{"c": 5}]]}`},
		{`{"_id": 1, "a": 5}`, `{"a.b": 1}`, `{"_id": 1}`},
	}
	for _, c := range cases {
		p, err := ParseProjection(doc(t, c.proj))
		if err != nil {
			t.Errorf("%s: %v", c.proj, err)
			continue
		}
		got, err := p.Apply(doc(t, c.doc), -1)
		if err != nil {
			t.Errorf("%s: Apply: %v", c.proj, err)
			continue
		}
		if g, w := canon(t, got), canon(t, doc(t, c.want)); g != w {
			t.Errorf("%s on %s:\n got %s\nwant %s", c.proj, c.doc, g, w)
		}
	}
}

func TestProjectionElemMatch(t *testing.T) {
	// "$elemMatch (projection)"
	schools := []string{
		`{"_id": 1, "zipcode": "63109", "students": [{"name": "john", "school": 102, "age": 10}, {"name": "jess", "school": 102, "age": 11}, {"name": "jeff", "school": 108, "age": 15}]}`,
		`{"_id": 2, "zipcode": "63110", "students": [{"name": "ajax", "school": 100, "age": 7}, {"name": "achilles", "school": 100, "age": 8}], "athletics": ["swimming", "basketball", "football"]}`,
		`{"_id": 3, "zipcode": "63109", "students": [{"name": "ajax", "school": 100, "age": 7}, {"name": "achilles", "school": 100, "age": 8}], "athletics": ["baseball", "basketball", "soccer"]}`,
		`{"_id": 4, "zipcode": "63109", "students": [{"name": "barney", "school": 102, "age": 7}, {"name": "ruth", "school": 102, "age": 16}]}`,
	}
	f, err := Parse(doc(t, `{"zipcode": "63109"}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		proj string
		want []string
	}{
		{`{"students": {"$elemMatch": {"school": 102}}}`, []string{
			`{"_id": 1, "students": [{"name": "john", "school": 102, "age": 10}]}`,
			`{"_id": 3}`,
			`{"_id": 4, "students": [{"name": "barney", "school": 102, "age": 7}]}`,
		}},
		{`{"students": {"$elemMatch": {"school": 102, "age": {"$gt": 10}}}}`, []string{
			`{"_id": 1, "students": [{"name": "jess", "school": 102, "age": 11}]}`,
			`{"_id": 3}`,
			`{"_id": 4, "students": [{"name": "ruth", "school": 102, "age": 16}]}`,
		}},
		{`{"athletics": {"$elemMatch": {"$eq": "basketball"}}}`, []string{`{"_id": 1}`, `{"_id": 3, "athletics": ["basketball"]}`, `{"_id": 4}`}},
	}
	for _, c := range cases {
		p, err := ParseProjection(doc(t, c.proj))
		if err != nil {
			t.Fatalf("%s: %v", c.proj, err)
		}
		var got []string
		for _, d := range docs(t, schools...) {
			if !f.Match(d) {
				continue
			}
			out, err := p.Apply(d, -1)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, canon(t, out))
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: got %v", c.proj, got)
		}
		for i := range got {
			if w := canon(t, doc(t, c.want[i])); got[i] != w {
				t.Errorf("%s: got %s want %s", c.proj, got[i], w)
			}
		}
	}
}

func TestProjectionPositional(t *testing.T) {
	// "$ (projection)"
	students := []string{
		`{"_id": 1, "semester": 1, "grades": [70, 87, 90]}`,
		`{"_id": 2, "semester": 1, "grades": [90, 88, 92]}`,
		`{"_id": 3, "semester": 1, "grades": [85, 100, 90]}`,
		`{"_id": 4, "semester": 2, "grades": [79, 85, 80]}`,
	}
	want := []string{`{"_id": 1, "grades": [87]}`, `{"_id": 2, "grades": [90]}`, `{"_id": 3, "grades": [85]}`}
	f, _ := Parse(doc(t, `{"semester": 1, "grades": {"$gte": 85}}`))
	p, err := ParseProjection(doc(t, `{"grades.$": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckFilter(f); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs(t, students...) {
		ok, pos := f.MatchPositional(d)
		if !ok {
			continue
		}
		out, err := p.Apply(d, pos)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, canon(t, out))
	}
	for i := range want {
		if i >= len(got) || got[i] != canon(t, doc(t, want[i])) {
			t.Fatalf("got %v want %v", got, want)
		}
	}
	// array of documents: "grades.$" with a predicate on grades.mean
	d := doc(t, `{"_id": 7, "grades": [{"grade": 80, "mean": 75, "std": 8}, {"grade": 85, "mean": 90, "std": 5}, {"grade": 90, "mean": 85, "std": 3}]}`)
	f2, _ := Parse(doc(t, `{"grades.mean": {"$gt": 80}}`))
	_, pos := f2.MatchPositional(d)
	p2, _ := ParseProjection(doc(t, `{"grades.$": 1}`))
	out, err := p2.Apply(d, pos)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := canon(t, out), canon(t, doc(t, `{"_id": 7, "grades": [{"grade": 85, "mean": 90, "std": 5}]}`)); g != w {
		t.Errorf("got %s want %s", g, w)
	}
	// no position: MongoDB's 51246
	_, err = p2.Apply(d, -1)
	checkErr(t, "positional without match", err, 51246, "positional operator '.$' couldn't find a matching element in the array")
	// filter without the field: 31277
	f3, _ := Parse(doc(t, `{"x": 1}`))
	checkErr(t, "CheckFilter", p2.CheckFilter(f3), 31277, "Positional projection 'grades.$' does not match the query document.")
}

func TestProjectionErrors(t *testing.T) {
	cases := []struct {
		proj string
		code int32
		msg  string
	}{
		{`{"a": 1, "b": 0}`, 31254, "Cannot do exclusion on field b in inclusion projection"},
		{`{"a": 0, "b": 1}`, 31253, "Cannot do inclusion on field b in exclusion projection"},
		{`{"a": 0, "b": "x"}`, 31252, "Cannot use expression other than $meta in exclusion projection"},
		{`{"a": 1, "a.b": 1}`, 31249, "Path collision at a.b remaining portion b"},
		{`{"a.b": 1, "a": 1}`, 31250, "Path collision at a"},
		{`{"a": {"$slice": "x"}}`, 31273, "$slice only supports numbers and [skip, limit] arrays"},
		{`{"a": {"$slice": [1]}}`, 31272, "$slice array argument should be of form [skip, limit]"},
		{`{"a": {"$slice": [1, 0]}}`, 31259, "$slice limit must be positive, got 0"},
		{`{"a": {"$slice": ["x", 1]}}`, 31257, "$slice expects the skip argument to be a number, got string"},
		{`{"a.b": {"$elemMatch": {"x": 1}}}`, 31275, "Cannot use $elemMatch projection on a nested field."},
		{`{"a": {"$elemMatch": 1}}`, 31274, "elemMatch: Invalid argument, object required, but got int"},
		{`{"a.$": 1, "b.$": 1}`, 31276, "Cannot specify more than one positional projection per query."},
		{`{"a.$": 1, "b": {"$elemMatch": {"x": 1}}}`, 31255, "Cannot specify positional operator and $elemMatch."},
		{`{"a.$.b.$": 1}`, 31287, "Cannot use positional operator twice: a.$.b.$"},
		{`{"a": {"$foo": 1}}`, 168, "Unrecognized expression '$foo'"},
		{`{"a": {}}`, 51270, "An empty sub-projection is not a valid value. Found empty object at path"},
	}
	for _, c := range cases {
		_, err := ParseProjection(doc(t, c.proj))
		checkErr(t, c.proj, err, c.code, c.msg)
	}
}
