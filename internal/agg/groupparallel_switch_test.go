package agg_test

import (
	"context"
	"testing"
	"time"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/cursor"
)

// A cursor's pipeline runs under a cursor.SwitchContext: the aggregate
// command's context first, each getMore's after. A parallel $group read
// in the first command must not tie anything to that command's context
// that outlives it: when the command ends (its context cancelled) after
// a getMore took over, the context package would ask the SwitchContext
// why it was done and get the getMore's nil error, and panic ("missing
// cancel error"), ending lode serve (seen in the eventlog benchmark).
func TestParallelGroupOutlivesItsFirstCommand(t *testing.T) {
	cat, stats := groupEvents(t, 60_000)
	pc := &agg.ParseContext{DB: testDB, Coll: groupColl, TempDir: t.TempDir(), Params: paramsOf(cat)}
	p, err := agg.Parse(parseDocs(t, `[{"$group": {"_id": "$p", "n": {"$sum": 1}}}]`), pc)
	if err != nil {
		t.Fatal(err)
	}
	first, endFirst := context.WithCancel(context.Background())
	sctx := cursor.NewSwitchContext(commandCtx{first})
	it, err := p.Run(sctx, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if d, err := it.Next(); err != nil || d == nil {
		t.Fatalf("first document: %v, %v", d, err)
	}
	if stats.ParallelGroups.Load() == 0 {
		t.Fatal("the $group did not run in parallel")
	}
	// A getMore takes over, then the first command ends.
	sctx.Set(context.Background())
	endFirst()
	time.Sleep(50 * time.Millisecond) // a goroutine tied to the first command would panic now
	n := 1
	for {
		d, err := it.Next()
		if err != nil {
			t.Fatalf("after the getMore took over: %v", err)
		}
		if d == nil {
			break
		}
		n++
	}
	if n != 50 {
		t.Fatalf("%d groups, want 50", n)
	}
}

// commandCtx stands for a command's context as the server makes it: not
// one of the context package's own (its value lookups do not lead to a
// cancelCtx), so a child tied to it through a SwitchContext waits on it
// in a goroutine.
type commandCtx struct{ context.Context }

func (commandCtx) Value(any) any { return nil }
