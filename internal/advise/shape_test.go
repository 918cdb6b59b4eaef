package advise

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestShapeOf: literals become their type placeholders, implicit
// equality becomes $eq, and operators keep their structure.
func TestShapeOf(t *testing.T) {
	f := bson.D{
		{Key: "a", Value: 1}, {Key: "s", Value: "x"}, {Key: "n", Value: nil}, {Key: "d", Value: time.Unix(0, 0)},
		{Key: "in", Value: bson.D{{Key: "$in", Value: bson.A{1, 2.5}}}},
		{Key: "mixed", Value: bson.D{{Key: "$in", Value: bson.A{1, "x"}}}},
		{Key: "m", Value: bson.D{{Key: "$all", Value: bson.A{bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "k", Value: "x"}}}}}}}},
		{Key: "$or", Value: bson.A{bson.D{{Key: "o", Value: bson.NewObjectID()}}}},
	}
	got := compactJSON(ShapeOf(raw(t, f)))
	want := `{"a":{"$eq":"?number"},"s":{"$eq":"?string"},"n":{"$eq":"?null"},"d":{"$eq":"?date"},` +
		`"in":{"$in":"?array<?number>"},"mixed":{"$in":"?array<>"},` +
		`"m":{"$all":[{"$elemMatch":{"k":{"$eq":"?string"}}}]},"$or":[{"o":{"$eq":"?objectId"}}]}`
	if got != want {
		t.Errorf("ShapeOf:\n got %s\nwant %s", got, want)
	}
}

// TestParseShapeAggregate: an aggregate's leading $match, $sort and
// $limit stand for its filter, sort and limit; a findAndModify has limit 1.
func TestParseShapeAggregate(t *testing.T) {
	doc := func(command string, rep bson.D) bson.Raw {
		return raw(t, bson.D{
			{Key: "key", Value: bson.D{{Key: "queryShape", Value: bson.D{
				{Key: "cmdNs", Value: bson.D{{Key: "db", Value: "d"}, {Key: "coll", Value: "c"}}}, {Key: "command", Value: command}}}}},
			{Key: "representativeQuery", Value: rep},
			{Key: "metrics", Value: bson.D{{Key: "execCount", Value: int64(4)}, {Key: "docsReturned", Value: bson.D{{Key: "sum", Value: int64(2)}}},
				{Key: "docsExamined", Value: bson.D{{Key: "sum", Value: int64(40)}}}}},
		})
	}
	s, err := ParseShape(doc("aggregate", bson.D{{Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "b", Value: -1}}}},
		bson.D{{Key: "$limit", Value: 5}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "a", Value: 1}}}},
	}}}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Filter.String() != `{"a": {"$numberInt":"1"}}` || len(s.Sort) != 1 || s.Sort[0].Key != "b" || s.Limit != 5 {
		t.Errorf("aggregate shape: filter %s sort %v limit %d", s.Filter, s.Sort, s.Limit)
	}
	if s.DocsPerResult() != 20 {
		t.Errorf("docs per result %.1f, want 40/2", s.DocsPerResult())
	}
	fam, err := ParseShape(doc("findAndModify", bson.D{{Key: "filter", Value: bson.D{{Key: "q", Value: nil}}}}))
	if err != nil {
		t.Fatal(err)
	}
	if fam.Limit != 1 || fam.DocsPerResult() != 10 {
		t.Errorf("findAndModify: limit %d, docs per result %.1f (want 1 and 40 over 4 executions)", fam.Limit, fam.DocsPerResult())
	}
	if _, err := ParseShape(raw(t, bson.D{{Key: "metrics", Value: bson.D{}}})); err == nil {
		t.Error("a document without key.queryShape parsed")
	}
}
