package agg_test

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestGraphLookupMemoryBudget checks that the instance's memory budget
// bounds a $graphLookup search too: it cannot spill, so a search over the
// budget fails with 40099 naming the budget, even with an absorbed
// $unwind that never builds the array. It runs on the engine's catalog,
// not through the wire, because the budget is set only when the server
// starts (lode serve --memory-budget-mb, which also sets the Go heap's
// soft limit for the whole process); test/aggregation's
// TestGraphLookupMemoryLimit checks the rest of the search's limits
// through the driver.
func TestGraphLookupMemoryBudget(t *testing.T) {
	cat := openCat(t)
	// 20 documents of 900 KB: 18 MB of documents, under no limit of
	// $graphLookup's own (100 MB) but over a 4 MB budget.
	huge := strings.Repeat("y", 900*1024)
	var docs []bsoncore.Document
	for i := 0; i < 20; i++ {
		docs = append(docs, bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i)).AppendInt32("g", 1).AppendString("pad", huge).Build())
	}
	if err := cat.Insert(context.Background(), testDB, "huge", docs); err != nil {
		t.Fatal(err)
	}
	pipeline := `[{"$limit":1},{"$graphLookup":{"from":"huge","startWith":"$g","connectFromField":"g","connectToField":"g","as":"all"}},{"$unwind":"$all"},{"$count":"n"}]`
	got, err := runPipeline(t, cat, "huge", pipeline, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[{"n":20}]`, false)
	budget := paramsOf(cat).Budget
	budget.SetLimit(4 << 20)
	defer budget.SetLimit(0)
	_, err = runPipeline(t, cat, "huge", pipeline, runOpts{})
	wantCode(t, err, 40099)
	if !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("budget refusal: %v", err)
	}
	if used := budget.Used(); used != 0 {
		t.Fatalf("%d bytes of the budget still reserved after the search failed", used)
	}
}
