package sim

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// RunOptions tune a run.
type RunOptions struct {
	// Log receives progress bars and messages (nil: silent).
	Log io.Writer
	// Keep skips the scenarios' teardown, leaving the data in place.
	Keep bool
	// Label names the target in the report (default: the URI).
	Label string
}

type boundScenario struct {
	spec   ScenarioSpec
	sc     *Scenario
	params Params
	ops    []Op // one per process
	rec    *recorder
}

// Run executes spec against the server at uri and returns its result.
func Run(ctx context.Context, spec Spec, uri string, o RunOptions) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	clients := make([]*mongo.Client, spec.Processes)
	defer func() {
		for _, c := range clients {
			if c != nil {
				_ = c.Disconnect(context.Background())
			}
		}
	}()
	ready := make([]atomic.Int64, spec.Processes)
	for i := range clients {
		mon := &event.PoolMonitor{Event: func(e *event.PoolEvent) {
			switch e.Type {
			case event.ConnectionReady:
				ready[i].Add(1)
			case event.ConnectionClosed:
				ready[i].Add(-1)
			}
		}}
		c, err := mongo.Connect(options.Client().ApplyURI(uri).
			SetMaxPoolSize(uint64(spec.PoolSize)).SetMinPoolSize(uint64(spec.PoolSize)).
			SetPoolMonitor(mon).SetAppName(fmt.Sprintf("lode-sim-%d", i)))
		if err != nil {
			return nil, fmt.Errorf("sim: connect process %d: %w", i, err)
		}
		clients[i] = c
	}
	if err := clients[0].Ping(ctx, nil); err != nil {
		return nil, fmt.Errorf("sim: ping %s: %w", uri, err)
	}
	warmUp(ctx, clients, ready, spec.PoolSize, o.Log)
	res := &Result{Spec: spec, Target: o.Label, Server: serverVersion(ctx, clients[0]),
		Counting: "every operation is counted: each start increments started, each finish (success, error or timeout) is recorded in an HDR histogram (1 µs to 1 h, 3 significant digits); nothing is sampled"}
	if res.Target == "" {
		res.Target = uri
	}

	// Setup, then bind each scenario's operation on every process.
	var bound []*boundScenario
	for _, ss := range spec.Scenarios {
		sc, err := Lookup(ss.Scenario)
		if err != nil {
			return nil, err
		}
		b := &boundScenario{spec: ss, sc: sc, params: sc.Defaults.Merge(ss.Params)}
		db := clients[0].Database(b.params.String("db", "sim"))
		if sc.Setup != nil {
			bar := NewBar(o.Log, "setup "+sc.Name)
			if err := sc.Setup(ctx, db, b.params, bar.Set); err != nil {
				return nil, fmt.Errorf("sim: setup %s: %w", sc.Name, err)
			}
		}
		bound = append(bound, b)
	}
	for _, b := range bound {
		for _, c := range clients {
			op, err := b.sc.Bind(ctx, c.Database(b.params.String("db", "sim")), b.params)
			if err != nil {
				return nil, fmt.Errorf("sim: bind %s: %w", b.sc.Name, err)
			}
			b.ops = append(b.ops, op)
		}
	}

	// Monitor on its own client so it never waits behind the load.
	mon, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(1).SetAppName("lode-sim-monitor"))
	if err != nil {
		return nil, fmt.Errorf("sim: connect monitor: %w", err)
	}
	defer func() { _ = mon.Disconnect(context.Background()) }()

	start := time.Now().Add(50 * time.Millisecond)
	res.StartedAt = start
	for _, b := range bound {
		b.rec = newRecorder(start)
	}
	smp := startSampler(mon, start)
	var wg sync.WaitGroup
	if spec.Strategy == StrategyClosed {
		runClosed(ctx, &spec, bound, start, &wg, o.Log)
	} else {
		runSlicetime(ctx, &spec, bound, start, &wg, o.Log)
	}
	wg.Wait()
	end := time.Now()
	res.ServerStatus = smp.finish()
	res.RuntimeSec = round3(end.Sub(start).Seconds())
	for _, b := range bound {
		res.Scenarios = append(res.Scenarios, b.rec.result(b.spec, b.params))
	}
	if !o.Keep {
		for _, b := range bound {
			if b.sc.Teardown != nil {
				db := clients[0].Database(b.params.String("db", "sim"))
				if err := b.sc.Teardown(ctx, db, b.params); err != nil {
					return res, fmt.Errorf("sim: teardown %s: %w", b.sc.Name, err)
				}
			}
		}
	}
	return res, nil
}

// launch starts one operation of b on process p without waiting for it.
func launch(ctx context.Context, spec *Spec, b *boundScenario, p int, sched time.Time, wg *sync.WaitGroup) {
	now := time.Now()
	b.rec.begin(now, now.Sub(sched))
	wg.Add(1)
	go func() {
		defer wg.Done()
		octx, cancel := context.WithTimeout(ctx, spec.OpTimeout())
		t0 := time.Now()
		err := b.ops[p](octx)
		t1 := time.Now()
		cancel()
		b.rec.end(t1, t1.Sub(t0), err)
	}()
}

type startEvent struct {
	at time.Duration
	b  *boundScenario
}

// runSlicetime starts each iteration's operations spread evenly over the
// window, never waiting for earlier ones (open loop).
func runSlicetime(ctx context.Context, spec *Spec, bound []*boundScenario, start time.Time, wg *sync.WaitGroup, log io.Writer) {
	win := spec.Window()
	bar := NewBar(log, "iterations")
	next := make([]int, len(bound)) // per-scenario op counter, for process round-robin
	for it := 0; it < spec.Iterations; it++ {
		var evs []startEvent
		for _, b := range bound {
			n := spec.UsersAt(b.spec.Users, it)
			for k := 0; k < n; k++ {
				evs = append(evs, startEvent{at: time.Duration(it)*win + win*time.Duration(k)/time.Duration(n), b: b})
			}
		}
		slices.SortStableFunc(evs, func(x, y startEvent) int { return int(x.at - y.at) })
		for _, ev := range evs {
			sched := start.Add(ev.at)
			if d := time.Until(sched); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
			i := slices.Index(bound, ev.b)
			launch(ctx, spec, ev.b, next[i]%spec.Processes, sched, wg)
			next[i]++
		}
		bar.Set(it+1, spec.Iterations)
	}
}

// runClosed runs Users workers per scenario, each issuing its next
// operation when the last finishes, for Iterations*Resolution.
func runClosed(ctx context.Context, spec *Spec, bound []*boundScenario, start time.Time, wg *sync.WaitGroup, log io.Writer) {
	deadline := start.Add(time.Duration(spec.Iterations) * spec.Window())
	time.Sleep(time.Until(start))
	w := 0
	for _, b := range bound {
		for k := 0; k < b.spec.Users; k++ {
			p := w % spec.Processes
			w++
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil && time.Now().Before(deadline) {
					now := time.Now()
					b.rec.begin(now, 0)
					octx, cancel := context.WithTimeout(ctx, spec.OpTimeout())
					err := b.ops[p](octx)
					t1 := time.Now()
					cancel()
					b.rec.end(t1, t1.Sub(now), err)
				}
			}()
		}
	}
	bar := NewBar(log, "seconds")
	total := spec.Iterations * spec.Resolution / 1000
	for s := 1; s <= total; s++ {
		time.Sleep(time.Until(start.Add(time.Duration(s) * time.Second)))
		bar.Set(s, total)
	}
}

func serverVersion(ctx context.Context, c *mongo.Client) string {
	raw, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()
	if err != nil {
		return "unknown"
	}
	v, _ := raw.Lookup("version").StringValueOK()
	return v
}

// warmUp opens every pool's connections before the run, as the seeds'
// tool did when it connected, so that connection handshakes (at most two
// at a time per pool in the Go driver) are not measured as operation
// latency. It pings concurrently until each pool holds poolSize ready
// connections, or 30 s pass.
func warmUp(ctx context.Context, clients []*mongo.Client, ready []atomic.Int64, poolSize int, log io.Writer) {
	bar := NewBar(log, "open connections")
	want := len(clients) * poolSize
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		total := 0
		for i := range ready {
			total += int(min(ready[i].Load(), int64(poolSize)))
		}
		bar.Set(total, want)
		if total >= want {
			return
		}
		var wg sync.WaitGroup
		for i, c := range clients {
			if ready[i].Load() >= int64(poolSize) {
				continue
			}
			for range poolSize {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_ = c.Ping(ctx, nil)
				}()
			}
		}
		wg.Wait()
	}
}
