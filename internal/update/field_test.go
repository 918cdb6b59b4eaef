package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Expected results follow the examples of MongoDB's operator reference
// pages; field order follows MongoDB 5.0+ (new fields appended in
// lexicographic order of their names).

const product = `{"_id": 100, "quantity": 250, "instock": true, "reorder": false,
 "details": {"model": "14QQ", "make": "Clothes Corp"},
 "tags": ["apparel", "clothing"], "ratings": [{"by": "Customer007", "rating": 4}]}`

func TestSet(t *testing.T) {
	runCases(t, []updCase{
		{name: "top-level fields", doc: product,
			update: `{"$set": {"quantity": 500, "details": {"model": "2600", "make": "Fashionaires"}, "tags": ["coats", "outerwear", "clothing"]}}`,
			want: `{"_id": 100, "quantity": 500, "instock": true, "reorder": false,
 "details": {"model": "2600", "make": "Fashionaires"},
 "tags": ["coats", "outerwear", "clothing"], "ratings": [{"by": "Customer007", "rating": 4}]}`},
		{name: "embedded field", doc: product, update: `{"$set": {"details.make": "Kustom Kidz"}}`,
			want: `{"_id": 100, "quantity": 250, "instock": true, "reorder": false,
 "details": {"model": "14QQ", "make": "Kustom Kidz"},
 "tags": ["apparel", "clothing"], "ratings": [{"by": "Customer007", "rating": 4}]}`},
		{name: "array elements", doc: product, update: `{"$set": {"tags.1": "rain gear", "ratings.0.rating": 2}}`,
			want: `{"_id": 100, "quantity": 250, "instock": true, "reorder": false,
 "details": {"model": "14QQ", "make": "Clothes Corp"},
 "tags": ["apparel", "rain gear"], "ratings": [{"by": "Customer007", "rating": 2}]}`},
		{name: "same value is a no-op", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"a": 1}}`,
			want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "same number other type is a change", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"a": 1.0}}`,
			want: `{"_id": 1, "a": 1.0}`},
		{name: "new fields in lexicographic order", doc: `{"_id": 1, "m": 0}`, update: `{"$set": {"z": 1, "b": 2}, "$inc": {"a": 3}}`,
			want: `{"_id": 1, "m": 0, "a": 3, "b": 2, "z": 1}`},
		{name: "numeric field names in numeric order", doc: `{"_id": 1}`, update: `{"$set": {"a.10": 1, "a.2": 2}}`,
			want: `{"_id": 1, "a": {"2": 2, "10": 1}}`},
		{name: "creates embedded documents", doc: `{"_id": 1}`, update: `{"$set": {"a.b.c": 1, "a.b.a": 2}}`,
			want: `{"_id": 1, "a": {"b": {"a": 2, "c": 1}}}`},
		{name: "a.0 on missing field makes a document", doc: `{"_id": 1}`, update: `{"$set": {"a.0": "x"}}`,
			want: `{"_id": 1, "a": {"0": "x"}}`},
		{name: "index past the end pads with nulls", doc: `{"_id": 1, "a": [1, 2]}`, update: `{"$set": {"a.5": 1}}`,
			want: `{"_id": 1, "a": [1, 2, null, null, null, 1]}`},
		{name: "empty operand is allowed", doc: `{"_id": 1}`, update: `{"$set": {}}`, want: `{"_id": 1}`, noop: true},
		{name: "_id to the same value", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"_id": 1, "a": 2}}`,
			want: `{"_id": 1, "a": 2}`},
	})
}

func TestUnset(t *testing.T) {
	runCases(t, []updCase{
		{name: "fields", doc: `{"_id": 1, "item": "chisel", "sku": "C001", "quantity": 4, "instock": true}`,
			update: `{"$unset": {"quantity": "", "instock": ""}}`, want: `{"_id": 1, "item": "chisel", "sku": "C001"}`},
		{name: "missing is a no-op", doc: `{"_id": 1}`, update: `{"$unset": {"a.b": 1}}`, want: `{"_id": 1}`, noop: true},
		{name: "through scalar is a no-op", doc: `{"_id": 1, "a": 1}`, update: `{"$unset": {"a.b": 1}}`, want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "array element becomes null", doc: `{"_id": 1, "a": [1, 2, 3]}`, update: `{"$unset": {"a.1": 1}}`,
			want: `{"_id": 1, "a": [1, null, 3]}`},
	})
}

func TestInc(t *testing.T) {
	runCases(t, []updCase{
		{name: "docs example", doc: `{"_id": 1, "sku": "abc123", "quantity": 10, "metrics": {"orders": 2, "ratings": 3.5}}`,
			update: `{"$inc": {"quantity": -2, "metrics.orders": 1}}`,
			want:   `{"_id": 1, "sku": "abc123", "quantity": 8, "metrics": {"orders": 3, "ratings": 3.5}}`},
		{name: "missing field is set", doc: `{"_id": 1}`, update: `{"$inc": {"a": {"$numberLong": "5"}}}`,
			want: `{"_id": 1, "a": {"$numberLong": "5"}}`},
		{name: "int32 overflow becomes int64", doc: `{"_id": 1, "a": 2147483647}`, update: `{"$inc": {"a": 1}}`,
			want: `{"_id": 1, "a": {"$numberLong": "2147483648"}}`},
		{name: "int32 plus int64 is int64", doc: `{"_id": 1, "a": 1}`, update: `{"$inc": {"a": {"$numberLong": "1"}}}`,
			want: `{"_id": 1, "a": {"$numberLong": "2"}}`},
		{name: "int plus double is double", doc: `{"_id": 1, "a": 1}`, update: `{"$inc": {"a": 0.5}}`,
			want: `{"_id": 1, "a": 1.5}`},
		{name: "zero is a no-op", doc: `{"_id": 1, "a": 1}`, update: `{"$inc": {"a": 0}}`, want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "decimal", doc: `{"_id": 1, "a": {"$numberDecimal": "1.1"}}`, update: `{"$inc": {"a": 2}}`,
			want: `{"_id": 1, "a": {"$numberDecimal": "3.1"}}`},
		{name: "int64 overflow", doc: `{"_id": "int64-max", "v": {"$numberLong": "9223372036854775807"}}`,
			update: `{"$inc": {"v": 1}}`, code: 2,
			msg: `Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for document {_id: "int64-max"}`},
		{name: "non-numeric field", doc: `{"_id": 1, "a": "x"}`, update: `{"$inc": {"a": 1}}`, code: 14,
			msg: `Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of non-numeric type string`},
		{name: "non-numeric argument", doc: `{"_id": 1}`, update: `{"$inc": {"a": "x"}}`, code: 14,
			msg: `Cannot increment with non-numeric argument: {a: "x"}`},
	})
}

func TestMul(t *testing.T) {
	runCases(t, []updCase{
		{name: "docs example", doc: `{"_id": 1, "item": "Hats", "price": {"$numberDecimal": "10.99"}, "quantity": 25}`,
			update: `{"$mul": {"price": {"$numberDecimal": "1.25"}, "quantity": 2}}`,
			want:   `{"_id": 1, "item": "Hats", "price": {"$numberDecimal": "13.7375"}, "quantity": 50}`},
		{name: "missing field gets zero of the argument's type", doc: `{"_id": 2, "item": "Unknown"}`,
			update: `{"$mul": {"price": {"$numberLong": "100"}}}`,
			want:   `{"_id": 2, "item": "Unknown", "price": {"$numberLong": "0"}}`},
		{name: "mixed types", doc: `{"_id": 3, "item": "Scarf", "price": {"$numberDecimal": "10"}}`,
			update: `{"$mul": {"price": 5}}`,
			want:   `{"_id": 3, "item": "Scarf", "price": {"$numberDecimal": "50"}}`},
		{name: "non-numeric argument", doc: `{"_id": 1}`, update: `{"$mul": {"a": true}}`, code: 14,
			msg: `Cannot multiply with non-numeric argument: {a: true}`},
	})
}

func TestMinMax(t *testing.T) {
	doc := `{"_id": 1, "highScore": 800, "lowScore": 200}`
	runCases(t, []updCase{
		{name: "min lowers", doc: doc, update: `{"$min": {"lowScore": 150}}`, want: `{"_id": 1, "highScore": 800, "lowScore": 150}`},
		{name: "min keeps", doc: doc, update: `{"$min": {"lowScore": 250}}`, want: doc, noop: true},
		{name: "max raises", doc: doc, update: `{"$max": {"highScore": 950}}`, want: `{"_id": 1, "highScore": 950, "lowScore": 200}`},
		{name: "max keeps", doc: doc, update: `{"$max": {"highScore": 700}}`, want: doc, noop: true},
		{name: "equal across types keeps", doc: doc, update: `{"$max": {"highScore": 800.0}}`, want: doc, noop: true},
		{name: "type order: string above number", doc: doc, update: `{"$max": {"highScore": "a"}}`,
			want: `{"_id": 1, "highScore": "a", "lowScore": 200}`},
		{name: "missing is set", doc: `{"_id": 1}`, update: `{"$min": {"a": 5}}`, want: `{"_id": 1, "a": 5}`},
	})
}

func TestRename(t *testing.T) {
	students := `{"_id": 1, "alias": ["The American Cincinnatus", "The American Fabius"], "mobile": "555-555-5555", "nmae": {"first": "george", "last": "washington"}}`
	runCases(t, []updCase{
		{name: "field", doc: students, update: `{"$rename": {"nmae": "name"}}`,
			want: `{"_id": 1, "alias": ["The American Cincinnatus", "The American Fabius"], "mobile": "555-555-5555", "name": {"first": "george", "last": "washington"}}`},
		{name: "embedded field", doc: `{"_id": 1, "name": {"first": "george", "last": "washington"}}`,
			update: `{"$rename": {"name.first": "name.fname"}}`,
			want:   `{"_id": 1, "name": {"last": "washington", "fname": "george"}}`},
		{name: "missing source is a no-op", doc: `{"_id": 1, "a": 1}`, update: `{"$rename": {"wife": "spouse"}}`,
			want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "overwrites target in place", doc: `{"_id": 1, "a": 1, "b": 2}`, update: `{"$rename": {"b": "a"}}`,
			want: `{"_id": 1, "a": 2}`},
		{name: "same path", doc: `{"_id": 1}`, update: `{"$rename": {"a": "a.b"}}`, code: 2,
			msg: `The source and target field for $rename must not be on the same path: a: "a.b"`},
		{name: "non-string target", doc: `{"_id": 1}`, update: `{"$rename": {"a": 1}}`, code: 2,
			msg: `The 'to' field for $rename must be a string: a: 1`},
		{name: "source in array", doc: `{"_id": 1, "a": [{"b": 1}]}`, update: `{"$rename": {"a.0.b": "c"}}`, code: 2},
	})
}

func TestCurrentDate(t *testing.T) {
	runCases(t, []updCase{
		{name: "docs example",
			doc:    `{"_id": 1, "status": "a", "lastModified": {"$date": "2013-10-02T01:11:18.965Z"}}`,
			update: `{"$currentDate": {"lastModified": true, "cancellation.date": {"$type": "timestamp"}}, "$set": {"cancellation.reason": "user request", "status": "D"}}`,
			want:   `{"_id": 1, "status": "D", "lastModified": {"$date": "2026-01-02T03:04:05Z"}, "cancellation": {"date": {"$timestamp": {"t": 1767323045, "i": 1}}, "reason": "user request"}}`},
		{name: "bad type", doc: `{"_id": 1}`, update: `{"$currentDate": {"a": {"$type": "x"}}}`, code: 2,
			msg: `The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}`},
	})
}

func TestSetOnInsert(t *testing.T) {
	runCases(t, []updCase{
		// MongoDB 5.0+ applies fields in lexicographic order, so defaultQty
		// precedes item in the inserted document.
		{name: "insert", doc: `{"_id": 1}`, insert: true,
			update: `{"$set": {"item": "apple"}, "$setOnInsert": {"defaultQty": 100}}`,
			want:   `{"_id": 1, "defaultQty": 100, "item": "apple"}`},
		{name: "update ignores it", doc: `{"_id": 1, "item": "pear"}`,
			update: `{"$set": {"item": "apple"}, "$setOnInsert": {"defaultQty": 100}}`,
			want:   `{"_id": 1, "item": "apple"}`},
		{name: "_id created on insert moves first", doc: `{"a": 1}`, insert: true,
			update: `{"$setOnInsert": {"_id": 7}}`, want: `{"_id": 7, "a": 1}`},
	})
}

func TestBit(t *testing.T) {
	runCases(t, []updCase{
		{name: "and", doc: `{"_id": 1, "expdata": 13}`, update: `{"$bit": {"expdata": {"and": 10}}}`, want: `{"_id": 1, "expdata": 8}`},
		{name: "or long", doc: `{"_id": 2, "expdata": {"$numberLong": "3"}}`, update: `{"$bit": {"expdata": {"or": 5}}}`,
			want: `{"_id": 2, "expdata": {"$numberLong": "7"}}`},
		{name: "xor", doc: `{"_id": 3, "expdata": 1}`, update: `{"$bit": {"expdata": {"xor": 5}}}`, want: `{"_id": 3, "expdata": 4}`},
		{name: "double argument", doc: `{"_id": 1}`, update: `{"$bit": {"a": {"and": 1.5}}}`, code: 2},
		{name: "non-integer field", doc: `{"_id": 1, "a": 1.5}`, update: `{"$bit": {"a": {"and": 1}}}`, code: 2},
	})
}

// TestCurrentDateTimestampClock: the increments of $currentDate
// timestamps come from the clock passed in (one per engine), so they grow
// across updates on one clock and are independent between clocks.
func TestCurrentDateTimestampClock(t *testing.T) {
	u, err := Parse(bsoncore.NewDocumentBuilder().AppendDocument("$currentDate", bsoncore.NewDocumentBuilder().
		AppendDocument("ts", bsoncore.NewDocumentBuilder().AppendString("$type", "timestamp").Build()).Build()).Build(), nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()
	inc := func(c *TimestampClock) uint32 {
		t.Helper()
		out, _, err := u.Apply(doc, ApplyOptions{Clock: c})
		if err != nil {
			t.Fatal(err)
		}
		_, i := out.Lookup("ts").Timestamp()
		return i
	}
	var a, b TimestampClock
	if got := []uint32{inc(&a), inc(&a), inc(&b), inc(&a)}; got[0] != 1 || got[1] != 2 || got[2] != 1 || got[3] != 3 {
		t.Fatalf("increments %v, want [1 2 1 3]", got)
	}
}
