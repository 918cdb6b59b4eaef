package migrate_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestMigrateFilters: --ns-include, --ns-exclude and --nsFrom/--nsTo
// choose and rename what is copied and what changes are applied; a view
// follows its collection's rename; a collection renamed into the
// included namespaces is copied whole.
func TestMigrateFilters(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc, dc := src.client(t), dst.client(t)
	ins := func(db, coll string, docs ...any) {
		t.Helper()
		if _, err := sc.Database(db).Collection(coll).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	ins("app", "users", bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}})
	ins("app", "tmp1", bson.D{{Key: "_id", Value: "t"}})
	ins("logs", "events", bson.D{{Key: "_id", Value: "e1"}})
	ins("logs", "other", bson.D{{Key: "_id", Value: "o1"}})
	ins("web", "hits", bson.D{{Key: "_id", Value: "h"}})
	if err := sc.Database("app").CreateView(ctx, "firstUsers", "users", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "_id", Value: 1}}}}}); err != nil {
		t.Fatal(err)
	}
	args := []string{"--ns-include", "app.*", "--ns-include", "logs.events", "--ns-exclude", "app.tmp*",
		"--nsFrom", "app.$c$", "--nsTo", "app_v2.$c$"}

	dry := startMigrate(t, src, dst, append(args, "--dry-run")...)
	if err := dry.wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"app.users -> app_v2.users", "app.firstUsers -> app_v2.firstUsers", "logs.events", "dry run: 3 namespace(s)"} {
		if !strings.Contains(dry.out.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry.out)
		}
	}

	m := startMigrate(t, src, dst, args...)
	m.waitFor("copy done", time.Minute)
	ins("app", "users", bson.D{{Key: "_id", Value: 3}})
	ins("app", "tmp1", bson.D{{Key: "_id", Value: "t2"}})
	ins("logs", "other", bson.D{{Key: "_id", Value: "o2"}})
	ins("logs", "events", bson.D{{Key: "_id", Value: "e2"}})
	if err := sc.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "app.tmp1"}, {Key: "to", Value: "app.kept"}}).Err(); err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, m)
	m.stop()

	want := map[string][]any{
		"app_v2.users": {int32(1), int32(2), int32(3)},
		"app_v2.kept":  {"t", "t2"},
		"logs.events":  {"e1", "e2"},
	}
	for ns, ids := range want {
		db, coll, _ := strings.Cut(ns, ".")
		docs := allDocs(t, ctx, dc.Database(db).Collection(coll))
		var got []any
		for _, d := range docs {
			v := d.Lookup("_id")
			if s, ok := v.StringValueOK(); ok {
				got = append(got, s)
			} else {
				got = append(got, v.Int32())
			}
		}
		if len(got) != len(ids) {
			t.Errorf("%s on the target: %v, want %v", ns, got, ids)
			continue
		}
		for i := range ids {
			if got[i] != ids[i] {
				t.Errorf("%s on the target: %v, want %v", ns, got, ids)
				break
			}
		}
	}
	dbs, err := dc.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs {
		if db == "app" || db == "web" {
			t.Errorf("database %s copied despite the filters", db)
		}
	}
	if names, _ := dc.Database("logs").ListCollectionNames(ctx, bson.D{}); len(names) != 1 {
		t.Errorf("logs on the target: %v, want events only", names)
	}
	var view bson.Raw
	cur, err := dc.Database("app_v2").ListCollections(ctx, bson.D{{Key: "name", Value: "firstUsers"}})
	if err != nil {
		t.Fatal(err)
	}
	if cur.Next(ctx) {
		view = cur.Current
	}
	if on, _ := view.Lookup("options", "viewOn").StringValueOK(); on != "users" {
		t.Errorf("the renamed view: %v", view)
	}
	v := startMigrate(t, src, dst, append(args, "--verify")...)
	if err := v.wait(time.Minute); err != nil {
		t.Errorf("verify with the filters: %v\n%s", err, v.out)
	}
}

// TestMigrateFromDataDirectory: --from a data directory no server has
// open copies it (opened embedded) and cuts over.
func TestMigrateFromDataDirectory(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	dir := filepath.Join(t.TempDir(), "data")
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Client().Database("app").Collection("c").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	dst := startServer(t, "dst")
	out, err := exec.Command(lodeBin(t), "migrate", "--from", dir, "--to", dst.uri(), "--cutover").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "cutover: done") {
		t.Errorf("output:\n%s", out)
	}
	if n := testenv.Count(t, dst.client(t).Database("app").Collection("c"), bson.D{}); n != 2 {
		t.Errorf("%d documents on the target, want 2", n)
	}
	// The same directory resumes its checkpoint; another source is
	// refused it.
	out, err = exec.Command(lodeBin(t), "migrate", "--from", dir, "--to", dst.uri(), "--cutover").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "resuming the catch-up") {
		t.Errorf("the same source again: %v\n%s", err, out)
	}
	other := startServer(t, "other")
	out, err = exec.Command(lodeBin(t), "migrate", "--from", other.uri(), "--to", dst.uri()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "did not come from this source") {
		t.Errorf("another source on the same target: %v\n%s", err, out)
	}
}

// TestMigrateReportsRefusals: a namespace the target refuses (here a
// rename to an invalid database name) is reported by name, the others
// are copied, and the move stops before the catch-up with an error.
func TestMigrateReportsRefusals(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc, dc := src.client(t), dst.client(t)
	for _, c := range []string{"good", "bad"} {
		if _, err := sc.Database("app").Collection(c).InsertOne(ctx, bson.D{{Key: "_id", Value: c}}); err != nil {
			t.Fatal(err)
		}
	}
	m := startMigrate(t, src, dst, "--nsFrom", "app.bad", "--nsTo", "bad$db.bad")
	if err := m.wait(time.Minute); err == nil {
		t.Fatalf("a refused namespace did not fail the move:\n%s", m.out)
	}
	out := m.out.String()
	for _, want := range []string{"ERROR: copy app.bad: the target refused to create collection bad$db.bad", "1 namespace(s) could not be copied ([app.bad])"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "copy done") {
		t.Errorf("the move went on to the catch-up:\n%s", out)
	}
	if testenv.FindDoc(t, dc.Database("app").Collection("good"), "good") == nil {
		t.Errorf("the accepted collection was not copied:\n%s", out)
	}
}
