// Package embedding_test checks what a program embedding several Lode
// instances relies on: each instance keeps its own settings.
package embedding_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/errs"
)

// MongoDB's error codes asserted here.
const (
	codeExceededMemoryLimit               = int(errs.ExceededMemoryLimit)
	codeQueryExceededMemoryLimitNoDiskUse = int(errs.QueryExceededMemoryLimitNoDiskUseAllowed)
)

func openInstance(t *testing.T) *mongo.Client {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Client()
}

func testCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func adminCmd(t *testing.T, c *mongo.Client, cmd bson.D) bson.Raw {
	t.Helper()
	var res bson.Raw
	if err := c.Database("admin").RunCommand(testCtx(t), cmd).Decode(&res); err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	return res
}

func setParameter(t *testing.T, c *mongo.Client, name string, v any) {
	t.Helper()
	adminCmd(t, c, bson.D{{Key: "setParameter", Value: 1}, {Key: name, Value: v}})
}

// getParameter returns the parameter's value as text (numbers of any
// BSON type print alike).
func getParameter(t *testing.T, c *mongo.Client, name string) string {
	t.Helper()
	res := adminCmd(t, c, bson.D{{Key: "getParameter", Value: 1}, {Key: name, Value: 1}})
	v := res.Lookup(name)
	switch v.Type {
	case bson.TypeInt32:
		return fmt.Sprint(v.Int32())
	case bson.TypeInt64:
		return fmt.Sprint(v.Int64())
	case bson.TypeBoolean:
		return fmt.Sprint(v.Boolean())
	}
	return v.String()
}

func codeOf(err error) int {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, code := range []int{codeQueryExceededMemoryLimitNoDiskUse, codeExceededMemoryLimit} {
			if se.HasErrorCode(code) {
				return code
			}
		}
	}
	return 0
}

// drain counts a cursor's documents.
func drain(ctx context.Context, cur *mongo.Cursor) (int, error) {
	defer cur.Close(ctx)
	n := 0
	for cur.Next(ctx) {
		n++
	}
	return n, cur.Err()
}

// TestInstancesKeepTheirOwnParameters opens two instances in one process
// and gives them different setParameter values: each reports its own
// through getParameter, and each behaves by its own. Instance a allows a
// blocking sort 1 KB and no disk use by default, so its unindexed sorts
// of 20 KB fail with 292 (QueryExceededMemoryLimitNoDiskUseAllowed) while
// b's succeed; b bounds $push to 1 KB, so its $group with $push fails
// with 146 (ExceededMemoryLimit) while a's succeeds.
func TestInstancesKeepTheirOwnParameters(t *testing.T) {
	ctx := testCtx(t)
	a, b := openInstance(t), openInstance(t)
	pad := strings.Repeat("x", 100)
	for _, c := range []*mongo.Client{a, b} {
		docs := make([]any, 0, 200)
		for i := 0; i < 200; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: (i * 37) % 200}, {Key: "pad", Value: pad}})
		}
		if _, err := c.Database("app").Collection("docs").InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}

	setParameter(t, a, "internalQueryMaxBlockingSortMemoryUsageBytes", 1024)
	setParameter(t, a, "allowDiskUseByDefault", false)
	setParameter(t, a, "internalQueryMaxScansToExplode", 3)
	setParameter(t, b, "internalQueryMaxPushBytes", 1024)
	setParameter(t, b, "internalDocumentSourceGroupMaxMemoryBytes", 12345678)

	for _, tc := range []struct {
		name   string
		a, b   string
		reason string
	}{
		{"internalQueryMaxBlockingSortMemoryUsageBytes", "1024", "104857600", "set on a only"},
		{"allowDiskUseByDefault", "false", "true", "set on a only"},
		{"internalQueryMaxScansToExplode", "3", "200", "set on a only"},
		{"internalQueryMaxPushBytes", "104857600", "1024", "set on b only"},
		{"internalDocumentSourceGroupMaxMemoryBytes", "104857600", "12345678", "set on b only"},
	} {
		if got := getParameter(t, a, tc.name); got != tc.a {
			t.Errorf("a: getParameter %s = %s, want %s (%s)", tc.name, got, tc.a, tc.reason)
		}
		if got := getParameter(t, b, tc.name); got != tc.b {
			t.Errorf("b: getParameter %s = %s, want %s (%s)", tc.name, got, tc.b, tc.reason)
		}
	}

	sortByK := bson.D{{Key: "k", Value: 1}}
	find := func(c *mongo.Client, o *options.FindOptionsBuilder) (int, error) {
		cur, err := c.Database("app").Collection("docs").Find(ctx, bson.D{}, o)
		if err != nil {
			return 0, err
		}
		return drain(ctx, cur)
	}
	aggregate := func(c *mongo.Client, pipeline mongo.Pipeline, o *options.AggregateOptionsBuilder) (int, error) {
		cur, err := c.Database("app").Collection("docs").Aggregate(ctx, pipeline, o)
		if err != nil {
			return 0, err
		}
		return drain(ctx, cur)
	}
	sortPipe := mongo.Pipeline{{{Key: "$sort", Value: sortByK}}}
	pushPipe := mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "pads", Value: bson.D{{Key: "$push", Value: "$pad"}}}}}}}
	for _, step := range []struct {
		name string
		run  func(c *mongo.Client) (int, error)
		// want is the document count on success; failA/failB the code
		// each instance must fail with (0: must succeed).
		want         int
		failA, failB int
	}{
		{"find sort, allowDiskUse false", func(c *mongo.Client) (int, error) {
			return find(c, options.Find().SetSort(sortByK).SetAllowDiskUse(false))
		}, 200, codeQueryExceededMemoryLimitNoDiskUse, 0},
		{"find sort, allowDiskUse by default", func(c *mongo.Client) (int, error) {
			return find(c, options.Find().SetSort(sortByK))
		}, 200, codeQueryExceededMemoryLimitNoDiskUse, 0},
		{"$sort, allowDiskUse false", func(c *mongo.Client) (int, error) {
			return aggregate(c, sortPipe, options.Aggregate().SetAllowDiskUse(false))
		}, 200, codeQueryExceededMemoryLimitNoDiskUse, 0},
		{"$sort, allowDiskUse by default", func(c *mongo.Client) (int, error) {
			return aggregate(c, sortPipe, options.Aggregate())
		}, 200, codeQueryExceededMemoryLimitNoDiskUse, 0},
		{"find sort, allowDiskUse true", func(c *mongo.Client) (int, error) {
			return find(c, options.Find().SetSort(sortByK).SetAllowDiskUse(true))
		}, 200, 0, 0},
		{"$group with $push", func(c *mongo.Client) (int, error) {
			return aggregate(c, pushPipe, options.Aggregate().SetAllowDiskUse(true))
		}, 1, 0, codeExceededMemoryLimit},
	} {
		for _, inst := range []struct {
			name string
			c    *mongo.Client
			fail int
		}{{"a", a, step.failA}, {"b", b, step.failB}} {
			n, err := step.run(inst.c)
			switch {
			case inst.fail != 0 && codeOf(err) != inst.fail:
				t.Errorf("%s on %s: %d documents, err %v; want error code %d", step.name, inst.name, n, err, inst.fail)
			case inst.fail == 0 && (err != nil || n != step.want):
				t.Errorf("%s on %s: %d documents, err %v; want %d documents", step.name, inst.name, n, err, step.want)
			}
		}
	}
}

// TestInstancesKeepTheirOwnDefaultRWConcern checks that
// setDefaultRWConcern on one instance leaves another's defaults alone.
func TestInstancesKeepTheirOwnDefaultRWConcern(t *testing.T) {
	a, b := openInstance(t), openInstance(t)
	adminCmd(t, a, bson.D{{Key: "setDefaultRWConcern", Value: 1}, {Key: "defaultWriteConcern", Value: bson.D{{Key: "w", Value: "majority"}}}})
	ra := adminCmd(t, a, bson.D{{Key: "getDefaultRWConcern", Value: 1}})
	rb := adminCmd(t, b, bson.D{{Key: "getDefaultRWConcern", Value: 1}})
	if w, ok := ra.Lookup("defaultWriteConcern", "w").StringValueOK(); !ok || w != "majority" {
		t.Fatalf("a: getDefaultRWConcern %v, want defaultWriteConcern {w: 'majority'}", ra)
	}
	if src := rb.Lookup("defaultWriteConcernSource").StringValue(); src != "implicit" {
		t.Fatalf("b: getDefaultRWConcern %v, want the implicit default write concern", rb)
	}
}
