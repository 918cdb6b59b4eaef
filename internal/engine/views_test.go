package engine

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// viewOn returns the viewOn of db.name, "" when it is not a view.
func viewOn(t *testing.T, e *Engine, db, name string) string {
	t.Helper()
	v, err := e.View(db, name)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return ""
	}
	return v.ViewOn
}

func setViewOn(t *testing.T, e *Engine, ctx context.Context, db, name, on string) {
	t.Helper()
	res, err := e.Update(ctx, db, SystemViews, []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: db + "." + name}}),
		Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "viewOn", Value: on}}}})}}, WriteOptions{Ordered: true})
	if err != nil || len(res.WriteErrors) > 0 {
		t.Fatalf("update: %v %v", err, res.WriteErrors)
	}
}

// TestViewsFollowSystemViews: the parsed views follow every change to
// system.views made through the engine.
func TestViewsFollowSystemViews(t *testing.T) {
	dir := t.TempDir()
	e := openTest(t, dir)
	ctx := context.Background()
	if got := viewOn(t, e, "db", "v"); got != "" {
		t.Fatalf("no system.views: %q", got)
	}
	insert(t, e, "db", SystemViews, bson.D{{Key: "_id", Value: "db.v"}, {Key: "viewOn", Value: "a"}, {Key: "pipeline", Value: bson.A{}}},
		bson.D{{Key: "_id", Value: "other.w"}, {Key: "viewOn", Value: "a"}}, // another database's _id: not a view
		bson.D{{Key: "_id", Value: "db.noviewon"}})
	if got := viewOn(t, e, "db", "v"); got != "a" {
		t.Errorf("inserted: %q", got)
	}
	if views, err := e.Views("db"); err != nil || len(views) != 1 {
		t.Errorf("views %v %v", views, err)
	}
	setViewOn(t, e, ctx, "db", "v", "b")
	if got := viewOn(t, e, "db", "v"); got != "b" {
		t.Errorf("updated: %q", got)
	}
	// A collection of the name hides the view.
	insert(t, e, "db", "v", bson.D{{Key: "_id", Value: 1}})
	if got := viewOn(t, e, "db", "v"); got != "" {
		t.Errorf("collection of the view's name: %q", got)
	}
	if err := e.DropCollection("db", "v"); err != nil {
		t.Fatal(err)
	}

	// In a transaction: seen once committed.
	tx, err := e.BeginTxn()
	if err != nil {
		t.Fatal(err)
	}
	setViewOn(t, e, WithTxn(ctx, tx), "db", "v", "c")
	if got := viewOn(t, e, "db", "v"); got != "b" {
		t.Errorf("before commit: %q", got)
	}
	if err := tx.Commit(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := viewOn(t, e, "db", "v"); got != "c" {
		t.Errorf("after commit: %q", got)
	}

	// Renamed away and back.
	if err := e.RenameCollection("db", SystemViews, "db", "saved", false); err != nil {
		t.Fatal(err)
	}
	if got := viewOn(t, e, "db", "v"); got != "" {
		t.Errorf("renamed away: %q", got)
	}
	if err := e.CreateCollection("db", SystemViews, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := viewOn(t, e, "db", "v"); got != "" {
		t.Errorf("new system.views: %q", got)
	}
	if err := e.RenameCollection("db", "saved", "db", SystemViews, true); err != nil {
		t.Fatal(err)
	}
	if got := viewOn(t, e, "db", "v"); got != "c" {
		t.Errorf("renamed back: %q", got)
	}

	// Restart.
	e.Close()
	e = openTest(t, dir)
	if got := viewOn(t, e, "db", "v"); got != "c" {
		t.Errorf("after restart: %q", got)
	}
	res, err := e.Delete(ctx, "db", SystemViews, []DeleteSpec{{Filter: D(t, bson.D{{Key: "_id", Value: "db.v"}}), Limit: 1}}, WriteOptions{Ordered: true})
	if err != nil || res.N != 1 {
		t.Fatalf("delete: %v %v", res, err)
	}
	if got := viewOn(t, e, "db", "v"); got != "" {
		t.Errorf("deleted: %q", got)
	}
	insert(t, e, "db", SystemViews, bson.D{{Key: "_id", Value: "db.v"}, {Key: "viewOn", Value: "a"}})
	if err := e.DropDatabase("db"); err != nil {
		t.Fatal(err)
	}
	if got := viewOn(t, e, "db", "v"); got != "" {
		t.Errorf("dropDatabase: %q", got)
	}
}

// TestViewsNeverGoBack: while a writer redefines a view, a reader never
// sees an older definition than one it saw before, and the writer sees
// its own as soon as its update returns.
func TestViewsNeverGoBack(t *testing.T) {
	e := openTest(t, "")
	ctx := context.Background()
	insert(t, e, "db", SystemViews, bson.D{{Key: "_id", Value: "db.v"}, {Key: "viewOn", Value: "c0"}})
	const n = 200
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errc := make(chan error, 4)
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				v, err := e.View("db", "v")
				if err != nil || v == nil {
					errc <- fmt.Errorf("read: %v %v", v, err)
					return
				}
				i, _ := strconv.Atoi(v.ViewOn[1:])
				if i < last {
					errc <- fmt.Errorf("read c%d after c%d", i, last)
					return
				}
				last = i
			}
		}()
	}
	for i := 1; i <= n; i++ {
		on := "c" + strconv.Itoa(i)
		setViewOn(t, e, ctx, "db", "v", on)
		if got := viewOn(t, e, "db", "v"); got != on {
			t.Fatalf("writer reads %q after setting %q", got, on)
		}
	}
	close(stop)
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}
