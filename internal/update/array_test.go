package update

import "testing"

func TestPush(t *testing.T) {
	runCases(t, []updCase{
		{name: "value", doc: `{"_id": 1, "scores": [44, 78, 38, 80]}`, update: `{"$push": {"scores": 89}}`,
			want: `{"_id": 1, "scores": [44, 78, 38, 80, 89]}`},
		{name: "each", doc: `{"_id": 1, "scores": [44]}`, update: `{"$push": {"scores": {"$each": [90, 92, 85]}}}`,
			want: `{"_id": 1, "scores": [44, 90, 92, 85]}`},
		{name: "missing field", doc: `{"_id": 1}`, update: `{"$push": {"a.b": 1}}`, want: `{"_id": 1, "a": {"b": [1]}}`},
		{name: "each sort slice", doc: `{"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8}, {"wk": 3, "score": 5}, {"wk": 4, "score": 6}]}`,
			update: `{"$push": {"quizzes": {"$each": [{"wk": 5, "score": 8}, {"wk": 6, "score": 7}, {"wk": 7, "score": 6}], "$sort": {"score": -1}, "$slice": 3}}}`,
			want:   `{"_id": 5, "quizzes": [{"wk": 1, "score": 10}, {"wk": 2, "score": 8}, {"wk": 5, "score": 8}]}`},
		{name: "position 0", doc: `{"_id": 1, "scores": [100]}`, update: `{"$push": {"scores": {"$each": [50, 60, 70], "$position": 0}}}`,
			want: `{"_id": 1, "scores": [50, 60, 70, 100]}`},
		{name: "negative position", doc: `{"_id": 1, "scores": [50, 60, 70, 100]}`,
			update: `{"$push": {"scores": {"$each": [20, 30], "$position": -2}}}`,
			want:   `{"_id": 1, "scores": [50, 60, 20, 30, 70, 100]}`},
		{name: "slice from end", doc: `{"_id": 1, "scores": [40, 50, 60]}`, update: `{"$push": {"scores": {"$each": [80, 78, 86], "$slice": -5}}}`,
			want: `{"_id": 1, "scores": [50, 60, 80, 78, 86]}`},
		{name: "slice from front", doc: `{"_id": 2, "scores": [89, 90]}`, update: `{"$push": {"scores": {"$each": [100, 20], "$slice": 3}}}`,
			want: `{"_id": 2, "scores": [89, 90, 100]}`},
		{name: "slice only", doc: `{"_id": 3, "scores": [89, 70, 100, 20]}`, update: `{"$push": {"scores": {"$each": [], "$slice": 1}}}`,
			want: `{"_id": 3, "scores": [89]}`},
		{name: "sort embedded", doc: `{"_id": 1, "quizzes": [{"id": 1, "score": 6}, {"id": 2, "score": 9}]}`,
			update: `{"$push": {"quizzes": {"$each": [{"id": 3, "score": 8}, {"id": 4, "score": 7}, {"id": 5, "score": 6}], "$sort": {"score": 1}}}}`,
			want:   `{"_id": 1, "quizzes": [{"id": 1, "score": 6}, {"id": 5, "score": 6}, {"id": 4, "score": 7}, {"id": 3, "score": 8}, {"id": 2, "score": 9}]}`},
		{name: "sort values", doc: `{"_id": 2, "tests": [89, 70, 89, 50]}`, update: `{"$push": {"tests": {"$each": [40, 60], "$sort": 1}}}`,
			want: `{"_id": 2, "tests": [40, 50, 60, 70, 89, 89]}`},
		{name: "sort only", doc: `{"_id": 3, "tests": [89, 70, 100, 20]}`, update: `{"$push": {"tests": {"$each": [], "$sort": -1}}}`,
			want: `{"_id": 3, "tests": [100, 89, 70, 20]}`},
		{name: "document without $each is a value", doc: `{"_id": 1, "a": []}`, update: `{"$push": {"a": {"$slice": 1}}}`,
			want: `{"_id": 1, "a": [{"$slice": 1}]}`},
		{name: "non-array", doc: `{"_id": 1, "a": 1}`, update: `{"$push": {"a": 2}}`, code: 2,
			msg: `The field 'a' must be an array but is of type int in document {_id: 1}`},
		{name: "bad clause", doc: `{"_id": 1}`, update: `{"$push": {"a": {"$each": [1], "$foo": 1}}}`, code: 2,
			msg: `Unrecognized clause in $push: $foo`},
		{name: "each not array", doc: `{"_id": 1}`, update: `{"$push": {"a": {"$each": 1}}}`, code: 2},
	})
}

func TestAddToSet(t *testing.T) {
	runCases(t, []updCase{
		{name: "array value", doc: `{"_id": 1, "letters": ["a", "b"]}`, update: `{"$addToSet": {"letters": ["c", "d"]}}`,
			want: `{"_id": 1, "letters": ["a", "b", ["c", "d"]]}`},
		{name: "present value", doc: `{"_id": 1, "item": "polarizing_filter", "tags": ["electronics", "camera"]}`,
			update: `{"$addToSet": {"tags": "camera"}}`, want: `{"_id": 1, "item": "polarizing_filter", "tags": ["electronics", "camera"]}`, noop: true},
		{name: "each", doc: `{"_id": 2, "item": "cable", "tags": ["electronics", "supplies"]}`,
			update: `{"$addToSet": {"tags": {"$each": ["camera", "electronics", "accessories"]}}}`,
			want:   `{"_id": 2, "item": "cable", "tags": ["electronics", "supplies", "camera", "accessories"]}`},
		{name: "missing", doc: `{"_id": 1}`, update: `{"$addToSet": {"a": {"$each": [1, 1, 2]}}}`, want: `{"_id": 1, "a": [1, 2]}`},
		{name: "non-array", doc: `{"_id": 1, "colors": "blue,green,red"}`, update: `{"$addToSet": {"colors": "c"}}`, code: 2,
			msg: `Cannot apply $addToSet to non-array field. Field named 'colors' has non-array type string`},
	})
}

func TestPop(t *testing.T) {
	runCases(t, []updCase{
		{name: "first", doc: `{"_id": 1, "scores": [8, 9, 10]}`, update: `{"$pop": {"scores": -1}}`, want: `{"_id": 1, "scores": [9, 10]}`},
		{name: "last", doc: `{"_id": 10, "scores": [9, 10]}`, update: `{"$pop": {"scores": 1}}`, want: `{"_id": 10, "scores": [9]}`},
		{name: "empty", doc: `{"_id": 1, "scores": []}`, update: `{"$pop": {"scores": 1}}`, want: `{"_id": 1, "scores": []}`, noop: true},
		{name: "missing", doc: `{"_id": 1}`, update: `{"$pop": {"scores": 1}}`, want: `{"_id": 1}`, noop: true},
		{name: "bad value", doc: `{"_id": 1}`, update: `{"$pop": {"a": 2}}`, code: 9, msg: `$pop expects 1 or -1, found: 2`},
		{name: "non-array", doc: `{"_id": 1, "a": {"b": 1}}`, update: `{"$pop": {"a.b": 1}}`, code: 14,
			msg: `Path 'a.b' contains an element of non-array type 'int'`},
	})
}

func TestPull(t *testing.T) {
	runCases(t, []updCase{
		{name: "in and value", doc: `{"_id": 1, "fruits": ["apples", "pears", "oranges", "grapes", "bananas"], "vegetables": ["carrots", "celery", "squash", "carrots"]}`,
			update: `{"$pull": {"fruits": {"$in": ["apples", "oranges"]}, "vegetables": "carrots"}}`,
			want:   `{"_id": 1, "fruits": ["pears", "grapes", "bananas"], "vegetables": ["celery", "squash"]}`},
		{name: "condition", doc: `{"_id": 1, "votes": [3, 5, 6, 7, 7, 8]}`, update: `{"$pull": {"votes": {"$gte": 6}}}`,
			want: `{"_id": 1, "votes": [3, 5]}`},
		{name: "embedded documents", doc: `{"_id": 1, "results": [{"item": "A", "score": 5}, {"item": "B", "score": 8}]}`,
			update: `{"$pull": {"results": {"score": 8, "item": "B"}}}`, want: `{"_id": 1, "results": [{"item": "A", "score": 5}]}`},
		{name: "document condition does not match scalars", doc: `{"_id": 1, "a": [1, 2]}`,
			update: `{"$pull": {"a": {"_id": 1}}}`, want: `{"_id": 1, "a": [1, 2]}`, noop: true},
		{name: "numeric equality across types", doc: `{"_id": 1, "a": [1, 2.0, 3]}`, update: `{"$pull": {"a": 2}}`,
			want: `{"_id": 1, "a": [1, 3]}`},
		{name: "non-array", doc: `{"_id": 1, "a": 1}`, update: `{"$pull": {"a": 1}}`, code: 2, msg: `Cannot apply $pull to a non-array value`},
		{name: "pullAll", doc: `{"_id": 1, "scores": [0, 2, 5, 5, 1, 0]}`, update: `{"$pullAll": {"scores": [0, 5]}}`,
			want: `{"_id": 1, "scores": [2, 1]}`},
		{name: "pullAll non-array argument", doc: `{"_id": 1}`, update: `{"$pullAll": {"a": 1}}`, code: 2,
			msg: `$pullAll requires an array argument but was given a int`},
	})
}

func TestPositional(t *testing.T) {
	runCases(t, []updCase{
		{name: "value", doc: `{"_id": 1, "grades": [85, 80, 80]}`, pos: 2, update: `{"$set": {"grades.$": 82}}`,
			want: `{"_id": 1, "grades": [85, 82, 80]}`},
		{name: "embedded", doc: `{"_id": 4, "grades": [{"grade": 80, "mean": 75, "std": 8}, {"grade": 85, "mean": 90, "std": 5}, {"grade": 85, "mean": 85, "std": 8}]}`,
			pos: 2, update: `{"$set": {"grades.$.std": 6}}`,
			want: `{"_id": 4, "grades": [{"grade": 80, "mean": 75, "std": 8}, {"grade": 85, "mean": 90, "std": 6}, {"grade": 85, "mean": 85, "std": 8}]}`},
		{name: "no match", doc: `{"_id": 1, "grades": [85]}`, update: `{"$set": {"grades.$": 82}}`, code: 2,
			msg: `The positional operator did not find the match needed from the query.`},
		{name: "all positional", doc: `{"_id": 1, "grades": [85, 82, 80]}`, update: `{"$inc": {"grades.$[]": 10}}`,
			want: `{"_id": 1, "grades": [95, 92, 90]}`},
		{name: "all positional nested", doc: `{"_id": 1, "grades": [{"q": 1}, {"q": 2}]}`, update: `{"$set": {"grades.$[].q": 0}}`,
			want: `{"_id": 1, "grades": [{"q": 0}, {"q": 0}]}`},
		{name: "all positional on missing", doc: `{"_id": 1}`, update: `{"$set": {"a.$[]": 1}}`, code: 2,
			msg: `The path 'a' must exist in the document in order to apply array updates.`},
		{name: "filtered", doc: `{"_id": 2, "grades": [98, 100, 102]}`, update: `{"$set": {"grades.$[element]": 100}}`,
			filters: []string{`{"element": {"$gte": 100}}`}, want: `{"_id": 2, "grades": [98, 100, 100]}`},
		{name: "filtered no match", doc: `{"_id": 1, "grades": [95, 92, 90]}`, update: `{"$set": {"grades.$[element]": 100}}`,
			filters: []string{`{"element": {"$gte": 100}}`}, want: `{"_id": 1, "grades": [95, 92, 90]}`, noop: true},
		{name: "filtered embedded", doc: `{"_id": 1, "grades": [{"grade": 80, "mean": 75, "std": 6}, {"grade": 85, "mean": 90, "std": 4}, {"grade": 85, "mean": 85, "std": 6}]}`,
			update: `{"$set": {"grades.$[elem].mean": 100}}`, filters: []string{`{"elem.grade": {"$gte": 85}}`},
			want: `{"_id": 1, "grades": [{"grade": 80, "mean": 75, "std": 6}, {"grade": 85, "mean": 100, "std": 4}, {"grade": 85, "mean": 100, "std": 6}]}`},
		{name: "filtered with two conditions", doc: `{"_id": 1, "grades": [{"grade": 80, "std": 6}, {"grade": 85, "std": 4}, {"grade": 90, "std": 6}]}`,
			update: `{"$inc": {"grades.$[elem].std": -1}}`, filters: []string{`{"elem.grade": {"$gte": 80}, "elem.std": {"$gt": 5}}`},
			want: `{"_id": 1, "grades": [{"grade": 80, "std": 5}, {"grade": 85, "std": 4}, {"grade": 90, "std": 5}]}`},
		{name: "nested filtered", doc: `{"_id": 1, "a": [{"b": [1, 5]}, {"b": [6]}]}`,
			update: `{"$set": {"a.$[x].b.$[y]": 0}}`, filters: []string{`{"x.b": {"$gt": 4}}`, `{"y": {"$gt": 4}}`},
			want: `{"_id": 1, "a": [{"b": [1, 0]}, {"b": [0]}]}`},
	})
}
