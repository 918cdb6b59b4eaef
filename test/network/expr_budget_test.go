package network

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestExpressionsWithinBudget is issue 30's report: against `lode serve
// --memory-budget-mb 256`, with maxTimeMS 1000, {$range: [0, 1e8]} (once
// 1.3 GB and 11.7 s) and string doubling through $reduce/$concat (once
// past 6 GB) fail at once with mongod's errors (146, 16493), a long
// expression loop stops at its deadline (50), and the server's RSS stays
// under the budget throughout.
func TestExpressionsWithinBudget(t *testing.T) {
	acceptanceOnly(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		testenv.Skip(t, testenv.GroupProc, "needs /proc to read the server's RSS")
	}
	const budget = 256 << 20
	cmd, addr := startLimited(t, 0, "--memory-budget-mb", "256")
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	d := client.Database("test")
	if _, err := d.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "ab"}}); err != nil {
		t.Fatal(err)
	}
	var peak int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	// The sampler ends before the server does, failed test or not: the
	// server is killed by a cleanup, and reading its gone /proc entry
	// would be a second, misleading failure.
	var once sync.Once
	end := func() { once.Do(func() { close(stop); <-stopped }) }
	defer end()
	go func() {
		defer close(stopped)
		for {
			_, rss := procStat(t, cmd.Process.Pid)
			peak = max(peak, rss)
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	for _, c := range []struct {
		pipeline string
		code     int32
	}{
		{`[{"$project":{"r":{"$range":[0,100000000]}}}]`, 146},
		{`[{"$project":{"s":{"$reduce":{"input":{"$range":[0,40]},"initialValue":"$s","in":{"$concat":["$$value","$$value"]}}}}}]`, 16493},
		{`[{"$project":{"s":{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value",{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}]}}}}}]`, 50},
	} {
		var p bson.A
		if err := bson.UnmarshalExtJSON([]byte(c.pipeline), false, &p); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := d.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: p},
			{Key: "cursor", Value: bson.D{}}, {Key: "maxTimeMS", Value: 1000}}).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != c.code {
			t.Fatalf("%s: want code %d, got %v", c.pipeline, c.code, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("%s: answered after %v", c.pipeline, took)
		}
	}
	end()
	t.Logf("RSS peak %d MB (budget %d MB)", peak>>20, budget>>20)
	if peak >= budget {
		t.Fatalf("RSS peaked at %d MB, over the %d MB budget", peak>>20, budget>>20)
	}
}

// TestBuiltValueOverBudget: against `lode serve --memory-budget-mb 64`
// (48 MiB for transient structures), an array doubled through $reduce
// stops with ExceededMemoryLimit once it is past 16 MiB and the budget
// cannot hold it, well before Lode's 100 MiB bound for one value.
func TestBuiltValueOverBudget(t *testing.T) {
	acceptanceOnly(t)
	_, addr := startLimited(t, 0, "--memory-budget-mb", "64")
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	d := client.Database("test")
	if _, err := d.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "ab"}}); err != nil {
		t.Fatal(err)
	}
	var p bson.A
	src := `[{"$project":{"v":{"$reduce":{"input":{"$range":[0,40]},"initialValue":"$s","in":["$$value","$$value"]}}}}]`
	if err := bson.UnmarshalExtJSON([]byte(src), false, &p); err != nil {
		t.Fatal(err)
	}
	err = d.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: p}, {Key: "cursor", Value: bson.D{}}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 146 || !strings.Contains(ce.Message, "memory budget") {
		t.Fatalf("want 146 for the memory budget, got %v", err)
	}
}
