package agg_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/params"
)

const testDB = "test"

// openCat opens a real engine in a temporary directory.
func openCat(t *testing.T) *aggengine.Catalog {
	t.Helper()
	e, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return aggengine.New(e)
}

// paramsOf returns the parameters and counters of the engine behind cat,
// or nil (MongoDB's defaults) for another catalog.
func paramsOf(cat agg.Catalog) *params.Set {
	if c, ok := cat.(*aggengine.Catalog); ok {
		return c.E.Params()
	}
	return nil
}

// statsOf returns the aggregation counters of the engine behind cat.
func statsOf(cat *aggengine.Catalog) *params.Stats { return &cat.E.Params().Stats }

// parseDocs parses a relaxed extended JSON array of documents.
func parseDocs(t testing.TB, js string) []bsoncore.Document {
	t.Helper()
	var arr bson.A
	if err := bson.UnmarshalExtJSON([]byte(`{"a":`+js+`}`), false, &struct {
		A *bson.A `bson:"a"`
	}{&arr}); err != nil {
		t.Fatalf("parse %s: %v", js, err)
	}
	out := make([]bsoncore.Document, 0, len(arr))
	for _, x := range arr {
		b, err := bson.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func insert(t testing.TB, cat *aggengine.Catalog, coll, js string) {
	t.Helper()
	if err := cat.Insert(context.Background(), testDB, coll, parseDocs(t, js)); err != nil {
		t.Fatal(err)
	}
}

// runOpts tunes a test run.
type runOpts struct {
	allowDiskUse bool
	memLimit     int64
}

func runPipeline(t testing.TB, cat agg.Catalog, coll, pipeline string, o runOpts) ([]bsoncore.Document, error) {
	t.Helper()
	pc := &agg.ParseContext{DB: testDB, Coll: coll, AllowDiskUse: o.allowDiskUse, MemoryLimit: o.memLimit, TempDir: t.TempDir(), Params: paramsOf(cat)}
	p, err := agg.Parse(parseDocs(t, pipeline), pc)
	if err != nil {
		return nil, err
	}
	it, err := p.Run(context.Background(), cat, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			return out, nil
		}
		out = append(out, d)
	}
}

// sameDocs compares results with expected documents in MongoDB's value
// order (numbers of different types compare equal); unordered sorts both
// sides first.
func sameDocs(t testing.TB, got []bsoncore.Document, wantJS string, unordered bool) {
	t.Helper()
	want := parseDocs(t, wantJS)
	if unordered {
		sortDocs(got)
		sortDocs(want)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d documents, want %d\ngot:  %s\nwant: %s", len(got), len(want), show(got), show(want))
	}
	for i := range got {
		if bsonutil.CompareDocuments(got[i], want[i]) != 0 || fieldNames(got[i]) != fieldNames(want[i]) || numericTypes(got[i]) != numericTypes(want[i]) {
			t.Fatalf("document %d differs\ngot:  %s\nwant: %s", i, show(got), show(want))
		}
	}
}

// numericTypes lists the BSON types of every number in d, depth first, so
// that comparisons are type-strict: 1, int64 1 and 1.0 differ.
func numericTypes(d bsoncore.Document) string {
	var b strings.Builder
	var walk func(v bsoncore.Value)
	walk = func(v bsoncore.Value) {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			vals, _ := bsoncore.Document(v.Data).Values()
			for _, x := range vals {
				walk(x)
			}
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
			b.WriteString(v.Type.String())
			b.WriteByte(' ')
		}
	}
	walk(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d})
	return b.String()
}

func fieldNames(d bsoncore.Document) string {
	els, _ := d.Elements()
	var ks []string
	for _, e := range els {
		ks = append(ks, e.Key())
	}
	return strings.Join(ks, ",")
}

func sortDocs(ds []bsoncore.Document) {
	sort.SliceStable(ds, func(i, j int) bool { return bsonutil.CompareDocuments(ds[i], ds[j]) < 0 })
}

func show(ds []bsoncore.Document) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %s", d.String())
	}
	return b.String()
}

func wantCode(t testing.TB, err error, code errs.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want code %d", code)
	}
	if e := errs.As(err); e.Code != code {
		t.Fatalf("got error %v (code %d), want code %d", err, e.Code, code)
	}
}

// runPipelineIn runs a pipeline with a 16 KiB memory limit, disk use
// allowed and spill files in dir.
func runPipelineIn(t testing.TB, cat agg.Catalog, coll, pipeline, dir string) ([]bsoncore.Document, error) {
	t.Helper()
	pc := &agg.ParseContext{DB: testDB, Coll: coll, AllowDiskUse: true, MemoryLimit: 16 << 10, TempDir: dir, Params: paramsOf(cat)}
	p, err := agg.Parse(parseDocs(t, pipeline), pc)
	if err != nil {
		return nil, err
	}
	it, err := p.Run(context.Background(), cat, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil || d == nil {
			return out, err
		}
		out = append(out, d)
	}
}
