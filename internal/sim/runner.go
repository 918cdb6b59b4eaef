package sim

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// RunOptions tune a run.
type RunOptions struct {
	// Log receives progress bars and messages (nil: silent).
	Log io.Writer
	// Keep skips the scenarios' teardown, leaving the data in place.
	Keep bool
	// Label names the target in the report (default: the URI).
	Label string
	// Monitor, when set, is installed on the load clients (the index
	// advisor's recorder listens to the commands with it).
	Monitor *event.CommandMonitor
	// BeforeTeardown, when set, runs once the load is over and the
	// results are collected, before the scenarios' teardown drops their
	// data, with a client on the target (`lode sim run --advise`).
	BeforeTeardown func(ctx context.Context, ctl *mongo.Client, res *Result) error
}

type boundScenario struct {
	spec   ScenarioSpec
	sc     *Scenario
	params Params
	ops    []Op // one per process
	rec    *recorder
	subs   *subscribers // a subscriber scenario's subscribers
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
		co := loadClientOptions(uri, &spec, i, mon)
		if o.Monitor != nil {
			co.SetMonitor(o.Monitor)
		}
		c, err := mongo.Connect(co)
		if err != nil {
			return nil, fmt.Errorf("sim: connect process %d: %w", i, err)
		}
		clients[i] = c
	}
	// The control client runs setup, teardown and the serverStatus
	// sampler: it never waits behind the load, and the operation timeout
	// (which may be short) does not apply to preloads.
	ctl, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(2).SetAppName("lode-sim-control"))
	if err != nil {
		return nil, fmt.Errorf("sim: connect control client: %w", err)
	}
	defer func() { _ = ctl.Disconnect(context.Background()) }()
	// A dead target is reported in seconds, not after the driver's
	// 30 s server selection.
	reach := reachTimeoutOf(uri)
	pctx, cancel := context.WithTimeout(ctx, reach)
	err = ctl.Ping(pctx, nil)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("sim: no server at %s answered within %v: %w", hostsOf(uri), reach, err)
	}
	warmUp(ctx, clients, ready, spec.PoolSize, o.Log)
	res := &Result{Spec: spec, Target: o.Label, Server: serverVersion(ctx, ctl),
		Counting: "every operation is counted: each start increments started, each finish (success, error or timeout) is recorded in an HDR histogram (1 µs to 1 h, 3 significant digits); nothing is sampled"}
	if spec.Strategy == StrategyClosed {
		res.Latency = "latency is measured from each operation's start to its finish (closed strategy: there is no schedule, so latency and service time are the same)"
	} else {
		res.Latency = "latency is measured from each operation's scheduled start to its finish, so time an operation waited behind a slow load generator counts (no coordinated omission); service time is measured from its actual start"
	}
	if res.Target == "" {
		res.Target = targetName(ctx, ctl, uri)
	}

	// Setup, then bind each scenario's operation on every process.
	var bound []*boundScenario
	for _, ss := range spec.Scenarios {
		sc, err := Lookup(ss.Scenario)
		if err != nil {
			return nil, err
		}
		b := &boundScenario{spec: ss, sc: sc, params: sc.Defaults.Merge(ss.Params)}
		db := ctl.Database(b.params.String("db", "sim"))
		if sc.Setup != nil {
			bar := NewBar(o.Log, "setup "+sc.Name)
			if err := sc.Setup(ctx, db, b.params, bar.Set); err != nil {
				return nil, fmt.Errorf("sim: setup %s: %w", sc.Name, err)
			}
		}
		bound = append(bound, b)
	}
	// Subscribers open before the load starts, so that they see all of it.
	var load []*boundScenario
	defer func() {
		for _, b := range bound {
			if b.subs != nil {
				b.subs.close()
			}
		}
	}()
	for _, b := range bound {
		if b.sc.Subscribe != nil {
			subs, err := openSubscribers(ctx, uri, b)
			if err != nil {
				return nil, err
			}
			b.subs = subs
			continue
		}
		for _, c := range clients {
			op, err := b.sc.Bind(ctx, c.Database(b.params.String("db", "sim")), b.params)
			if err != nil {
				return nil, fmt.Errorf("sim: bind %s: %w", b.sc.Name, err)
			}
			b.ops = append(b.ops, op)
		}
		load = append(load, b)
	}

	start := time.Now().Add(50 * time.Millisecond)
	res.StartedAt = start
	for _, b := range bound {
		b.rec = newRecorder(start)
		if b.subs != nil {
			b.subs.start(ctx)
		}
	}
	smp := startSampler(ctl, start)
	var wg sync.WaitGroup
	if spec.Strategy == StrategyClosed {
		runClosed(ctx, &spec, load, start, &wg, o.Log)
	} else {
		runSlicetime(ctx, &spec, load, start, &wg, o.Log)
	}
	wg.Wait()
	end := time.Now()
	subStats := map[*boundScenario]*SubscriberStats{}
	for _, b := range bound {
		if b.subs != nil {
			subStats[b] = b.subs.finish(ctx, ctl, end)
		}
	}
	res.ServerStatus = smp.finish()
	res.RuntimeSec = round3(end.Sub(start).Seconds())
	for _, b := range bound {
		sr := b.rec.result(b.spec, b.params)
		sr.Subscriber = subStats[b]
		res.Scenarios = append(res.Scenarios, sr)
	}
	if o.BeforeTeardown != nil {
		if err := o.BeforeTeardown(ctx, ctl, res); err != nil {
			return res, fmt.Errorf("sim: before teardown: %w", err)
		}
	}
	if !o.Keep {
		for _, b := range bound {
			if b.sc.Teardown != nil {
				db := ctl.Database(b.params.String("db", "sim"))
				if err := b.sc.Teardown(ctx, db, b.params); err != nil {
					return res, fmt.Errorf("sim: teardown %s: %w", b.sc.Name, err)
				}
			}
		}
	}
	return res, nil
}

// loadClientOptions are the options of process i's client: a pool of
// PoolSize connections, all opened before the run, and the operation
// timeout as both the client timeout and the server selection timeout, so
// that it also bounds the wait for a pooled connection (the driver caps
// that wait at serverSelectionTimeout, 30 s by default).
func loadClientOptions(uri string, spec *Spec, i int, mon *event.PoolMonitor) *options.ClientOptions {
	return options.Client().ApplyURI(uri).
		SetMaxPoolSize(uint64(spec.PoolSize)).SetMinPoolSize(uint64(spec.PoolSize)).
		SetServerSelectionTimeout(spec.OpTimeout()).SetTimeout(spec.OpTimeout()).
		SetPoolMonitor(mon).SetAppName(fmt.Sprintf("lode-sim-%d", i))
}

// launch starts one operation of b on process p without waiting for it.
// Its latency is recorded from sched, its scheduled start; its service
// time from when it actually started.
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
		b.rec.end(t1, t1.Sub(sched), t1.Sub(t0), err)
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

// runClosed runs workers that each issue their next operation when the
// last finishes, until Iterations*Resolution have passed. A constant
// load starts Users workers per scenario at once; a ramp adds workers at
// the start of each iteration, up to UsersAt(Users, i) in iteration i.
func runClosed(ctx context.Context, spec *Spec, bound []*boundScenario, start time.Time, wg *sync.WaitGroup, log io.Writer) {
	win := spec.Window()
	deadline := start.Add(time.Duration(spec.Iterations) * win)
	running := make([]int, len(bound)) // workers started per scenario
	w := 0                             // workers started in all, for process round-robin
	bar := NewBar(log, "iterations")
	for it := 0; it < spec.Iterations; it++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(start.Add(time.Duration(it) * win))):
		}
		for i, b := range bound {
			for ; running[i] < spec.UsersAt(b.spec.Users, it); running[i]++ {
				p := w % spec.Processes
				w++
				wg.Add(1)
				go closedWorker(ctx, spec, b, p, deadline, wg)
			}
		}
		bar.Set(it, spec.Iterations)
	}
	time.Sleep(time.Until(deadline))
	bar.Set(spec.Iterations, spec.Iterations)
}

// closedWorker runs b's operation on process p back to back until the
// deadline.
func closedWorker(ctx context.Context, spec *Spec, b *boundScenario, p int, deadline time.Time, wg *sync.WaitGroup) {
	defer wg.Done()
	for ctx.Err() == nil && time.Now().Before(deadline) {
		t0 := time.Now()
		b.rec.begin(t0, 0)
		octx, cancel := context.WithTimeout(ctx, spec.OpTimeout())
		err := b.ops[p](octx)
		t1 := time.Now()
		cancel()
		b.rec.end(t1, t1.Sub(t0), t1.Sub(t0), err)
	}
}

// targetName names the server at uri by what it is and where: "Lode at
// 127.0.0.1:27017", "MongoDB at db1:27017,db2:27017"; never with the
// URI's credentials or options.
func targetName(ctx context.Context, c *mongo.Client, uri string) string {
	product := "MongoDB"
	if raw, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw(); err == nil {
		if g, _ := raw.Lookup("gitVersion").StringValueOK(); g == "lode" {
			product = "Lode"
		} else if _, err := raw.LookupErr("ferretdb"); err == nil {
			product = "FerretDB"
		}
	}
	return product + " at " + hostsOf(uri)
}

// reachTimeout bounds the first ping of the target, unless the URI's
// connectTimeoutMS asks for less (reachTimeoutOf).
const reachTimeout = 5 * time.Second

// reachTimeoutOf is how long the first ping of the target at uri may
// take: reachTimeout, or the URI's connectTimeoutMS when shorter.
func reachTimeoutOf(uri string) time.Duration {
	cs, err := connstring.Parse(uri)
	if err == nil && cs.ConnectTimeoutSet && cs.ConnectTimeout > 0 && cs.ConnectTimeout < reachTimeout {
		return cs.ConnectTimeout
	}
	return reachTimeout
}

// hostsOf is the host list of uri, without its credentials and
// options, for messages and reports.
func hostsOf(uri string) string {
	cs, err := connstring.Parse(uri)
	if err != nil || len(cs.Hosts) == 0 {
		return "the given URI"
	}
	return strings.Join(cs.Hosts, ",")
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
