package agg_test

import (
	"testing"

	"github.com/lodedb/lode/internal/errs"
)

// Data sets from MongoDB's documentation examples.
const (
	salesDocs = `[
 {"_id":1,"item":"abc","price":10,"quantity":2,"date":{"$date":"2014-03-01T08:00:00Z"}},
 {"_id":2,"item":"jkl","price":20,"quantity":1,"date":{"$date":"2014-03-01T09:00:00Z"}},
 {"_id":3,"item":"xyz","price":5,"quantity":10,"date":{"$date":"2014-03-15T09:00:00Z"}},
 {"_id":4,"item":"xyz","price":5,"quantity":20,"date":{"$date":"2014-04-04T11:21:39.736Z"}},
 {"_id":5,"item":"abc","price":10,"quantity":10,"date":{"$date":"2014-04-04T21:23:13.331Z"}},
 {"_id":6,"item":"def","price":7.5,"quantity":5,"date":{"$date":"2015-06-04T05:08:13Z"}},
 {"_id":7,"item":"def","price":7.5,"quantity":10,"date":{"$date":"2015-09-10T08:43:00Z"}},
 {"_id":8,"item":"abc","price":10,"quantity":5,"date":{"$date":"2016-02-06T20:20:13Z"}}]`
	clothingDocs = `[
 {"_id":1,"item":"Shirt","sizes":["S","M","L"]},
 {"_id":2,"item":"Shorts","sizes":[]},
 {"_id":3,"item":"Hat","sizes":"M"},
 {"_id":4,"item":"Gloves"},
 {"_id":5,"item":"Scarf","sizes":null}]`
	ordersDocs = `[
 {"_id":1,"item":"almonds","price":12,"quantity":2},
 {"_id":2,"item":"pecans","price":20,"quantity":1},
 {"_id":3}]`
	inventoryDocs = `[
 {"_id":1,"sku":"almonds","description":"product 1","instock":120},
 {"_id":2,"sku":"bread","description":"product 2","instock":80},
 {"_id":3,"sku":"cashews","description":"product 3","instock":60},
 {"_id":4,"sku":"pecans","description":"product 4","instock":70},
 {"_id":5,"sku":null,"description":"Incomplete"},
 {"_id":6}]`
	artworkDocs = `[
 {"_id":1,"title":"The Pillars of Society","artist":"Grosz","year":1926,"price":199.99},
 {"_id":2,"title":"Melancholy III","artist":"Munch","year":1902,"price":280.00},
 {"_id":3,"title":"Dancer","artist":"Miro","year":1925,"price":76.04},
 {"_id":4,"title":"The Great Wave off Kanagawa","artist":"Hokusai","price":167.30},
 {"_id":5,"title":"The Persistence of Memory","artist":"Dali","year":1931,"price":483.00},
 {"_id":6,"title":"Composition VII","artist":"Kandinsky","year":1913,"price":385.00},
 {"_id":7,"title":"The Scream","artist":"Munch","year":1893},
 {"_id":8,"title":"Blue Flower","artist":"O'Keefe","year":1918,"price":118.42}]`
	produceDocs = `[{"_id":1,"fruit":["apples","oranges"],"in_stock":{"oranges":20,"apples":60},"on_order":{"oranges":35,"apples":75}}]`
)

func TestStages(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "sales", salesDocs)
	insert(t, cat, "clothing", clothingDocs)
	insert(t, cat, "orders", ordersDocs)
	insert(t, cat, "inventory", inventoryDocs)
	insert(t, cat, "artwork", artworkDocs)
	insert(t, cat, "produce", produceDocs)
	insert(t, cat, "warehouses", `[{"_id":1,"stock_item":"almonds","warehouse":"A","instock":120},{"_id":2,"stock_item":"pecans","warehouse":"A","instock":80},{"_id":3,"stock_item":"almonds","warehouse":"B","instock":60}]`)

	tests := []struct {
		name, coll, pipeline, want string
		unordered                  bool
	}{
		{"group count", "sales", `[{"$group":{"_id":null,"count":{"$count":{}}}}]`, `[{"_id":null,"count":8}]`, false},
		{"group distinct", "sales", `[{"$group":{"_id":"$item"}}]`, `[{"_id":"abc"},{"_id":"jkl"},{"_id":"xyz"},{"_id":"def"}]`, true},
		{"group having", "sales", `[{"$group":{"_id":"$item","totalSaleAmount":{"$sum":{"$multiply":["$price","$quantity"]}}}},{"$match":{"totalSaleAmount":{"$gte":100}}}]`,
			`[{"_id":"abc","totalSaleAmount":170},{"_id":"xyz","totalSaleAmount":150},{"_id":"def","totalSaleAmount":112.5}]`, true},
		{"group by year then sort", "sales", `[{"$match":{"date":{"$gte":{"$date":"2014-01-01T00:00:00Z"},"$lt":{"$date":"2015-01-01T00:00:00Z"}}}},
			{"$group":{"_id":{"$dateToString":{"format":"%Y-%m-%d","date":"$date"}},"totalSaleAmount":{"$sum":{"$multiply":["$price","$quantity"]}},"averageQuantity":{"$avg":"$quantity"},"count":{"$sum":1}}},{"$sort":{"totalSaleAmount":-1}}]`,
			`[{"_id":"2014-04-04","totalSaleAmount":200,"averageQuantity":15.0,"count":2},{"_id":"2014-03-15","totalSaleAmount":50,"averageQuantity":10.0,"count":1},{"_id":"2014-03-01","totalSaleAmount":40,"averageQuantity":1.5,"count":2}]`, false},
		{"sort skip limit project", "sales", `[{"$sort":{"quantity":-1,"_id":1}},{"$skip":1},{"$limit":3},{"$project":{"item":1,"quantity":1}}]`,
			`[{"_id":3,"item":"xyz","quantity":10},{"_id":5,"item":"abc","quantity":10},{"_id":7,"item":"def","quantity":10}]`, false},
		{"top-k sort", "sales", `[{"$addFields":{"q":"$quantity"}},{"$sort":{"q":1,"_id":-1}},{"$limit":2},{"$project":{"_id":1}}]`, `[{"_id":2},{"_id":1}]`, false},
		{"project exclusion", "produce", `[{"$project":{"fruit":0,"on_order":0}}]`, `[{"_id":1,"in_stock":{"oranges":20,"apples":60}}]`, false},
		{"project computed and nested", "produce", `[{"$project":{"_id":0,"in_stock.apples":1,"total":{"$add":["$in_stock.apples","$on_order.apples"]}}}]`, `[{"in_stock":{"apples":60},"total":135}]`, false},
		{"addFields nested", "produce", `[{"$addFields":{"in_stock.pears":5,"fruit":"$$REMOVE","n":{"$size":"$fruit"}}},{"$project":{"on_order":0}}]`,
			`[{"_id":1,"in_stock":{"oranges":20,"apples":60,"pears":5},"n":2}]`, false},
		{"unset", "produce", `[{"$unset":["in_stock","on_order.apples"]}]`, `[{"_id":1,"fruit":["apples","oranges"],"on_order":{"oranges":35}}]`, false},
		{"replaceRoot", "produce", `[{"$replaceRoot":{"newRoot":"$in_stock"}}]`, `[{"oranges":20,"apples":60}]`, false},
		{"replaceWith", "produce", `[{"$replaceWith":"$on_order"}]`, `[{"oranges":35,"apples":75}]`, false},
		{"unwind string", "clothing", `[{"$unwind":"$sizes"}]`,
			`[{"_id":1,"item":"Shirt","sizes":"S"},{"_id":1,"item":"Shirt","sizes":"M"},{"_id":1,"item":"Shirt","sizes":"L"},{"_id":3,"item":"Hat","sizes":"M"}]`, false},
		{"unwind index", "clothing", `[{"$unwind":{"path":"$sizes","includeArrayIndex":"arrayIndex"}}]`,
			`[{"_id":1,"item":"Shirt","sizes":"S","arrayIndex":{"$numberLong":"0"}},{"_id":1,"item":"Shirt","sizes":"M","arrayIndex":{"$numberLong":"1"}},{"_id":1,"item":"Shirt","sizes":"L","arrayIndex":{"$numberLong":"2"}},{"_id":3,"item":"Hat","sizes":"M","arrayIndex":null}]`, false},
		{"unwind preserve", "clothing", `[{"$unwind":{"path":"$sizes","preserveNullAndEmptyArrays":true}}]`,
			`[{"_id":1,"item":"Shirt","sizes":"S"},{"_id":1,"item":"Shirt","sizes":"M"},{"_id":1,"item":"Shirt","sizes":"L"},{"_id":2,"item":"Shorts"},{"_id":3,"item":"Hat","sizes":"M"},{"_id":4,"item":"Gloves"},{"_id":5,"item":"Scarf","sizes":null}]`, false},
		{"count", "clothing", `[{"$match":{"item":{"$ne":"Hat"}}},{"$count":"n"}]`, `[{"n":4}]`, false},
		{"count after unwind", "clothing", `[{"$unwind":"$sizes"},{"$count":"n"}]`, `[{"n":4}]`, false},
		{"sortByCount", "sales", `[{"$sortByCount":"$item"}]`, `[{"_id":"abc","count":3},{"_id":"xyz","count":2},{"_id":"def","count":2},{"_id":"jkl","count":1}]`, true},
		{"lookup equality", "orders", `[{"$lookup":{"from":"inventory","localField":"item","foreignField":"sku","as":"inventory_docs"}}]`,
			`[{"_id":1,"item":"almonds","price":12,"quantity":2,"inventory_docs":[{"_id":1,"sku":"almonds","description":"product 1","instock":120}]},
			  {"_id":2,"item":"pecans","price":20,"quantity":1,"inventory_docs":[{"_id":4,"sku":"pecans","description":"product 4","instock":70}]},
			  {"_id":3,"inventory_docs":[{"_id":5,"sku":null,"description":"Incomplete"},{"_id":6}]}]`, false},
		{"lookup pipeline let", "orders", `[{"$match":{"item":{"$exists":true}}},{"$lookup":{"from":"warehouses","let":{"order_item":"$item","order_qty":"$quantity"},"pipeline":[
			{"$match":{"$expr":{"$and":[{"$eq":["$stock_item","$$order_item"]},{"$gte":["$instock","$$order_qty"]}]}}},{"$project":{"stock_item":0,"_id":0}}],"as":"stockdata"}}]`,
			`[{"_id":1,"item":"almonds","price":12,"quantity":2,"stockdata":[{"warehouse":"A","instock":120},{"warehouse":"B","instock":60}]},
			  {"_id":2,"item":"pecans","price":20,"quantity":1,"stockdata":[{"warehouse":"A","instock":80}]}]`, false},
		{"lookup combined", "orders", `[{"$match":{"_id":1}},{"$lookup":{"from":"warehouses","localField":"item","foreignField":"stock_item","let":{"q":"$quantity"},"pipeline":[{"$match":{"$expr":{"$gt":["$instock",{"$multiply":["$$q",40]}]}}},{"$project":{"_id":0,"warehouse":1}}],"as":"w"}}]`,
			`[{"_id":1,"item":"almonds","price":12,"quantity":2,"w":[{"warehouse":"A"}]}]`, false},
		{"bucket", "artwork", `[{"$bucket":{"groupBy":"$price","boundaries":[0,200,400],"default":"Other","output":{"count":{"$sum":1},"titles":{"$push":"$title"}}}}]`,
			`[{"_id":0,"count":4,"titles":["The Pillars of Society","Dancer","The Great Wave off Kanagawa","Blue Flower"]},{"_id":200,"count":2,"titles":["Melancholy III","Composition VII"]},{"_id":"Other","count":2,"titles":["The Persistence of Memory","The Scream"]}]`, false},
		{"bucketAuto", "artwork", `[{"$bucketAuto":{"groupBy":"$price","buckets":4}}]`,
			`[{"_id":{"min":null,"max":118.42},"count":2},{"_id":{"min":118.42,"max":199.99},"count":2},{"_id":{"min":199.99,"max":385.00},"count":2},{"_id":{"min":385.00,"max":483.00},"count":2}]`, false},
		{"facet", "artwork", `[{"$facet":{"byArtist":[{"$match":{"artist":"Munch"}},{"$project":{"_id":1}}],"n":[{"$count":"total"}]}}]`,
			`[{"byArtist":[{"_id":2},{"_id":7}],"n":[{"total":8}]}]`, false},
		{"unionWith", "orders", `[{"$project":{"_id":1}},{"$unionWith":{"coll":"warehouses","pipeline":[{"$project":{"_id":0,"warehouse":1}}]}}]`,
			`[{"_id":1},{"_id":2},{"_id":3},{"warehouse":"A"},{"warehouse":"A"},{"warehouse":"B"}]`, false},
		{"match after group expr", "sales", `[{"$match":{"$expr":{"$gte":[{"$multiply":["$price","$quantity"]},100]}}},{"$project":{"_id":1}}]`, `[{"_id":4},{"_id":5}]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runPipeline(t, cat, tc.coll, tc.pipeline, runOpts{})
			if err != nil {
				t.Fatal(err)
			}
			sameDocs(t, got, tc.want, tc.unordered)
		})
	}
}

func TestDocumentsStage(t *testing.T) {
	cat := openCat(t)
	got, err := runPipeline(t, cat, "", `[{"$documents":[{"x":10},{"x":2},{"x":5}]},{"$bucketAuto":{"groupBy":"$x","buckets":4}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	// From the $documents documentation example.
	sameDocs(t, got, `[{"_id":{"min":2,"max":5},"count":1},{"_id":{"min":5,"max":10},"count":1},{"_id":{"min":10,"max":10},"count":1}]`, false)
}

func TestParseErrors(t *testing.T) {
	cat := openCat(t)
	tests := []struct {
		name, pipeline string
		code           errs.Code
	}{
		{"unknown stage", `[{"$foo":{}}]`, 40324},
		{"two fields", `[{"$match":{},"$limit":1}]`, 40323},
		{"empty stage", `[{}]`, 40323},
		{"out not last", `[{"$out":"x"},{"$match":{}}]`, 40601},
		{"merge not last", `[{"$merge":{"into":"x"}},{"$match":{}}]`, 40601},
		{"group without _id", `[{"$group":{"n":{"$sum":1}}}]`, 15955},
		{"unknown accumulator", `[{"$group":{"_id":null,"n":{"$foo":1}}}]`, 15952},
		{"limit zero", `[{"$limit":0}]`, 15958},
		{"skip negative", `[{"$skip":-1}]`, 15956},
		{"unwind no dollar", `[{"$unwind":"sizes"}]`, 28818},
		{"project mixed", `[{"$project":{"a":1,"b":0}}]`, 31254},
		{"count with dot", `[{"$count":"a.b"}]`, 40160},
		{"documents not first", `[{"$match":{}},{"$documents":[]}]`, 40602},
		{"facet with out", `[{"$facet":{"a":[{"$out":"x"}]}}]`, 40600},
		{"lookup with out", `[{"$lookup":{"from":"x","pipeline":[{"$out":"y"}],"as":"z"}}]`, 51047},
		{"lookup no as", `[{"$lookup":{"from":"x","localField":"a","foreignField":"b"}}]`, errs.FailedToParse},
		{"sort empty", `[{"$sort":{}}]`, 15976},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runPipeline(t, cat, "c", tc.pipeline, runOpts{})
			wantCode(t, err, tc.code)
		})
	}
}

// TestSeed003HitsPerPathPerDay runs seed 003's "hits per path per day"
// report on a small hand-computed data set.
func TestSeed003HitsPerPathPerDay(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "events", `[
	 {"path":"/a","time":{"$date":"2000-10-10T10:00:00Z"}},
	 {"path":"/a","time":{"$date":"2000-10-10T11:00:00Z"}},
	 {"path":"/b","time":{"$date":"2000-10-10T12:00:00Z"}},
	 {"path":"/a","time":{"$date":"2000-10-11T01:00:00Z"}},
	 {"path":"/a","time":{"$date":"2000-09-30T23:59:59Z"}},
	 {"path":"/b","time":{"$date":"2000-11-01T00:00:00Z"}},
	 {"path":"/b","time":{"$date":"2000-10-31T23:00:00Z"}}]`)
	got, err := runPipeline(t, cat, "events", `[
	 {"$match":{"time":{"$gte":{"$date":"2000-10-01T00:00:00Z"},"$lt":{"$date":"2000-11-01T00:00:00Z"}}}},
	 {"$project":{"path":1,"date":{"y":{"$year":"$time"},"m":{"$month":"$time"},"d":{"$dayOfMonth":"$time"}}}},
	 {"$group":{"_id":{"p":"$path","y":"$date.y","m":"$date.m","d":"$date.d"},"hits":{"$sum":1}}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[
	 {"_id":{"p":"/a","y":2000,"m":10,"d":10},"hits":2},
	 {"_id":{"p":"/b","y":2000,"m":10,"d":10},"hits":1},
	 {"_id":{"p":"/a","y":2000,"m":10,"d":11},"hits":1},
	 {"_id":{"p":"/b","y":2000,"m":10,"d":31},"hits":1}]`, true)
}
