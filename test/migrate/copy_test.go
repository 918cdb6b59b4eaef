package migrate_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// seedShapes creates on c's "shapes" database a collection of each kind
// lode migrate must carry with its options: capped, validated, with a
// collation, a view on a view, TTL, unique, partial, text and 2dsphere
// indexes.
func seedShapes(t *testing.T, ctx context.Context, c *mongo.Client) {
	t.Helper()
	d := c.Database("shapes")
	run := func(cmd bson.D) {
		t.Helper()
		if err := d.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	run(bson.D{{Key: "create", Value: "capped"}, {Key: "capped", Value: true}, {Key: "size", Value: 65536}, {Key: "max", Value: 100}})
	run(bson.D{{Key: "create", Value: "validated"}, {Key: "validator", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: 0}}}}},
		{Key: "validationLevel", Value: "moderate"}, {Key: "validationAction", Value: "error"}})
	run(bson.D{{Key: "create", Value: "french"}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "fr"}, {Key: "strength", Value: 1}}}})
	run(bson.D{{Key: "create", Value: "bigones"}, {Key: "viewOn", Value: "validated"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gt", Value: 50}}}}}}}}})
	run(bson.D{{Key: "create", Value: "biggest"}, {Key: "viewOn", Value: "bigones"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "qty", Value: -1}}}}}}})
	for i := range 150 {
		if _, err := d.Collection("capped").InsertOne(ctx, bson.D{{Key: "i", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	var docs []any
	for i := range 100 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "qty", Value: i}, {Key: "name", Value: fmt.Sprintf("Élan %d", i)},
			{Key: "loc", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{float64(i % 90), float64(i % 45)}}}},
			{Key: "at", Value: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}})
	}
	for _, coll := range []string{"validated", "french"} {
		if _, err := d.Collection(coll).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.Collection("validated").Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "name", Value: 1}}, Options: options.Index().SetUnique(true)},
		{Keys: bson.D{{Key: "qty", Value: -1}}, Options: options.Index().SetPartialFilterExpression(bson.D{{Key: "qty", Value: bson.D{{Key: "$gt", Value: 10}}}})},
		{Keys: bson.D{{Key: "at", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)},
		{Keys: bson.D{{Key: "name", Value: "text"}}},
		{Keys: bson.D{{Key: "loc", Value: "2dsphere"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Collection("french").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
}

// seedItems inserts n small documents into items.items.
func seedItems(t *testing.T, ctx context.Context, c *mongo.Client, n int) {
	t.Helper()
	coll := c.Database("items").Collection("items")
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 100}, {Key: "s", Value: "item"}}
	})
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
}

var rateRE = regexp.MustCompile(`copied (\d+) documents .* in ([0-9.]+)s \((\d+) docs/s\)`)

// TestMigrateCopiesAndFollows: a copy of collections of every kind, then
// changes of every kind (documents, collections, indexes, views) applied
// from the change stream; lode migrate --verify and an independent
// comparison find the target equal to the source; a restarted migration
// resumes from its checkpoint without copying again.
func TestMigrateCopiesAndFollows(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc, dc := src.client(t), dst.client(t)
	seedShapes(t, ctx, sc)
	seedItems(t, ctx, sc, 20000)

	dry := startMigrate(t, src, dst, "--dry-run")
	if err := dry.wait(time.Minute); err != nil {
		t.Fatalf("dry run: %v\n%s", err, dry.out)
	}
	for _, want := range []string{"collection  items.items  ~20000 documents, 1 index(es)", "view        shapes.biggest", "capped", "dry run: 6 namespace(s)"} {
		if !strings.Contains(dry.out.String(), want) {
			t.Errorf("dry run output lacks %q:\n%s", want, dry.out)
		}
	}
	if names, _ := dc.ListDatabaseNames(ctx, bson.D{{Key: "name", Value: bson.D{{Key: "$nin", Value: bson.A{"admin", "local", "config"}}}}}); len(names) > 0 {
		t.Errorf("the dry run wrote to the target: %v", names)
	}

	m := startMigrate(t, src, dst)
	m.waitFor("copy done", time.Minute)
	if rateRE.FindString(m.out.String()) == "" {
		t.Errorf("no copy summary:\n%s", m.out)
	}
	// Changes of every kind after the copy.
	items := sc.Database("items").Collection("items")
	shapes := sc.Database("shapes")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := items.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "new"}, {Key: "k", Value: 1}}, bson.D{{Key: "_id", Value: bson.NewObjectID()}}})
	must(err)
	_, err = items.UpdateMany(ctx, bson.D{{Key: "k", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a.b", Value: bson.A{1, 2}}}}, {Key: "$unset", Value: bson.D{{Key: "s", Value: ""}}}})
	must(err)
	_, err = items.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "replaced", Value: true}})
	must(err)
	_, err = items.DeleteMany(ctx, bson.D{{Key: "k", Value: 9}})
	must(err)
	_, err = items.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}, {Key: "k", Value: -1}}, Options: options.Index().SetSparse(true)})
	must(err)
	must(items.Indexes().DropOne(ctx, "k_1"))
	must(shapes.Collection("capped").Drop(ctx))
	must(sc.Database("items").CreateCollection(ctx, "later", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)))
	for x := range 50 {
		_, err = sc.Database("items").Collection("later").InsertOne(ctx, bson.D{{Key: "x", Value: x}})
		must(err)
	}
	must(sc.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "shapes.french"}, {Key: "to", Value: "shapes.francais"}}).Err())
	must(shapes.RunCommand(ctx, bson.D{{Key: "collMod", Value: "bigones"}, {Key: "viewOn", Value: "validated"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gt", Value: 90}}}}}}}}}).Err())
	must(shapes.RunCommand(ctx, bson.D{{Key: "collMod", Value: "validated"}, {Key: "validator", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: -1}}}}}}).Err())
	must(shapes.CreateView(ctx, "lateview", "validated", mongo.Pipeline{}))
	must(sc.Database("gone").Collection("x").Drop(ctx))
	_, err = sc.Database("gone").Collection("x").InsertOne(ctx, bson.D{})
	must(err)
	must(sc.Database("gone").Drop(ctx))

	waitCaughtUp(t, m)
	m.stop()
	sameData(t, ctx, sc, dc)
	// A capped collection keeps its insertion (natural) order.
	natural := func(c *mongo.Client) []int32 {
		cur, err := c.Database("items").Collection("later").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var out []int32
		for cur.Next(ctx) {
			out = append(out, cur.Current.Lookup("x").Int32())
		}
		return out
	}
	if a, b := fmt.Sprint(natural(sc)), fmt.Sprint(natural(dc)); a != b {
		t.Errorf("capped natural order: %s on the source, %s on the target", a, b)
	}
	v := startMigrate(t, src, dst, "--verify")
	if err := v.wait(time.Minute); err != nil {
		t.Errorf("verify: %v\n%s", err, v.out)
	}
	if !strings.Contains(v.out.String(), "namespace(s) identical") {
		t.Errorf("verify output:\n%s", v.out)
	}

	// A restart resumes the catch-up: no copy again.
	_, err = items.InsertOne(ctx, bson.D{{Key: "_id", Value: "afterRestart"}})
	must(err)
	m2 := startMigrate(t, src, dst)
	m2.waitFor("resuming the catch-up", 30*time.Second)
	waitCaughtUp(t, m2)
	m2.stop()
	if strings.Contains(m2.out.String(), "copying") {
		t.Errorf("the restarted migration copied again:\n%s", m2.out)
	}
	if testenv.FindDoc(t, dc.Database("items").Collection("items"), "afterRestart") == nil {
		t.Errorf("the change after the restart is not on the target:\n%s", m2.out)
	}

	// A difference is found and listed, with exit status 1.
	_, err = dc.Database("items").Collection("items").DeleteOne(ctx, bson.D{{Key: "_id", Value: 5}})
	must(err)
	v2 := startMigrate(t, src, dst, "--verify")
	if err := v2.wait(time.Minute); err == nil {
		t.Errorf("verify after a deletion on the target succeeded:\n%s", v2.out)
	}
	if !strings.Contains(v2.out.String(), `_id {"$numberInt":"5"} missing on the target`) {
		t.Errorf("verify does not list the missing document:\n%s", v2.out)
	}
}

// waitCaughtUp waits until lode migrate prints, after this call, that
// it has caught up with the source (writes made before the call).
func waitCaughtUp(t *testing.T, m *migrator) {
	t.Helper()
	n := len(m.lines("catch-up: "))
	deadline := time.Now().Add(time.Minute)
	for {
		lines := m.lines("catch-up: ")
		if len(lines) >= n+2 && strings.Contains(lines[len(lines)-1], "caught up") {
			return
		}
		select {
		case <-m.done:
			t.Fatalf("lode migrate ended: %v\n%s", m.err, m.out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("lode migrate did not catch up:\n%s", m.out)
		}
	}
}

// TestMigrateCopyRate measures the copy phase: small documents per
// second, at least 50,000 under LODE_ACCEPTANCE=1 (500,000 documents);
// the everyday size only checks that the copy completes and reports.
func TestMigrateCopyRate(t *testing.T) {
	if !testenv.Acceptance() {
		t.Parallel() // measured alone under LODE_ACCEPTANCE=1
	}
	ctx := testenv.Ctx(t)
	n := testenv.Size(30000, 500000)
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc := src.client(t)
	seedItems(t, ctx, sc, n)
	m := startMigrate(t, src, dst)
	m.waitFor("copy done", 5*time.Minute)
	m.stop()
	match := rateRE.FindStringSubmatch(m.out.String())
	if match == nil {
		t.Fatalf("no copy summary:\n%s", m.out)
	}
	copied, _ := strconv.Atoi(match[1])
	rate, _ := strconv.Atoi(match[3])
	if copied != n {
		t.Errorf("copied %d documents, want %d", copied, n)
	}
	t.Logf("copy: %d documents at %d docs/s", copied, rate)
	if testenv.Acceptance() && rate < 50000 {
		t.Errorf("copy rate %d docs/s, want at least 50,000", rate)
	}
	if got := testenv.Count(t, dst.client(t).Database("items").Collection("items"), bson.D{}); got != int64(n) {
		t.Errorf("target has %d documents, want %d", got, n)
	}
}
