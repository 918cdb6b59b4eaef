package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/advise"
	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/internal/sim/report"
	_ "github.com/lodedb/lode/internal/sim/scenarios" // built-in scenarios
	"github.com/lodedb/lode/internal/sim/simulations"
)

const simUsage = `usage:
  lode sim list                 list scenarios and shipped simulations
  lode sim show NAME            print a scenario's or simulation's parameters
  lode sim run NAME|FILE [flags]

run flags:
  --processes N      independent client pools (default 4)
  --pool-size N      connections per pool (default 50)
  --iterations N     resolution windows (default 25)
  --resolution MS    window length in ms (default 1000)
  --users N | SCENARIO=N   operations started per iteration (slicetime) or workers (closed)
  --type constant|ramp
  --strategy slicetime|closed
  --timeout MS       per-operation timeout (default 60000)
  --param KEY=VALUE  scenario parameter (SCENARIO.KEY=VALUE for one scenario); repeatable
  --uri URI          target server (default: embedded Lode in a temporary directory)
  --compare-uri URI  run the same simulation against a second target, side by side
  --out DIR          report directory (default ./sim-report)
  --keep             skip teardown (leave the data)
  --quiet            no progress bars
  --p99-target D     the latency every scenario's 99th percentile must stay under
                     (e.g. 50ms); the verdict at the top of the report says whether it did
  --advise           run the index advisor (lode advise) on each target at the end,
                     before teardown, and add its table to the report
`

// runSim implements `lode sim`.
func runSim(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, simUsage)
		return errors.New("sim: missing subcommand")
	}
	switch args[0] {
	case "list":
		return simList()
	case "show":
		if len(args) < 2 {
			return errors.New("sim show: missing NAME")
		}
		return simShow(args[1])
	case "run":
		return simRun(args[1:])
	case "help", "-h", "--help":
		fmt.Print(simUsage)
		return nil
	}
	return fmt.Errorf("sim: unknown subcommand %q", args[0])
}

func simList() error {
	fmt.Println("scenarios:")
	for _, s := range sim.Scenarios() {
		fmt.Printf("  %-30s seed %s\n", s.Name, s.Seed)
	}
	fmt.Println("simulations (sim/simulations):")
	for _, n := range simulations.Names() {
		fmt.Printf("  %s\n", n)
	}
	return nil
}

func simShow(name string) error {
	if sc, err := sim.Lookup(name); err == nil {
		fmt.Printf("scenario %s (seed %s)\n%s\n\nparameters:\n", sc.Name, sc.Seed, sc.Description)
		for _, k := range sc.Defaults.Keys() {
			fmt.Printf("  %-12s %v\n", k, sc.Defaults[k])
		}
		sp := sim.DefaultSpec(name)
		unit := "users per iteration"
		if sc.Subscribe != nil {
			unit = "subscribers (run it in a simulation with publishers, such as seed004-queue-changestream)"
		}
		fmt.Printf("\ndefault load: %s, %d %s\n", report.Describe(&sp), sp.Scenarios[0].Users, unit)
		return nil
	}
	sp, err := sim.Resolve(name)
	if err != nil {
		return err
	}
	fmt.Printf("simulation %s\n%s\nload: %s\n", sp.Name, sp.Description, report.Describe(&sp))
	for _, ss := range sp.Scenarios {
		sc, _ := sim.Lookup(ss.Scenario)
		unit := "users per iteration"
		if sc.Subscribe != nil {
			unit = "subscribers"
		}
		fmt.Printf("  %-28s %5d %s  params: %v\n", ss.Scenario, ss.Users, unit, sc.Defaults.Merge(ss.Params))
	}
	return nil
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func simRun(args []string) error {
	fs := flag.NewFlagSet("sim run", flag.ContinueOnError)
	setUsage(fs, "lode sim run NAME|FILE [flags]   (lode sim help: the subcommands)")
	processes := fs.Int("processes", 4, "independent client pools")
	pool := fs.Int("pool-size", 50, "connections per pool")
	iterations := fs.Int("iterations", 25, "iterations")
	resolution := fs.Int("resolution", 1000, "window length in ms")
	typ := fs.String("type", sim.TypeConstant, "constant|ramp")
	strategy := fs.String("strategy", sim.StrategySlicetime, "slicetime|closed")
	timeout := fs.Int("timeout", 60000, "per-operation timeout in ms")
	uri := fs.String("uri", "", "target server URI (default: embedded Lode)")
	compare := fs.String("compare-uri", "", "second target, run side by side")
	out := fs.String("out", "./sim-report", "report directory")
	keep := fs.Bool("keep", false, "skip teardown")
	quiet := fs.Bool("quiet", false, "no progress bars")
	adv := fs.Bool("advise", false, "run the index advisor at the end")
	p99 := fs.Duration("p99-target", 0, "99th percentile latency target (e.g. 50ms)")
	var users, params multiFlag
	fs.Var(&users, "users", "operations per iteration: N or SCENARIO=N")
	fs.Var(&params, "param", "scenario parameter KEY=VALUE or SCENARIO.KEY=VALUE")
	// Accept the name before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
	}
	if name == "" {
		return errors.New("sim run: missing NAME or FILE")
	}
	spec, err := sim.Resolve(name)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["processes"] {
		spec.Processes = *processes
	}
	if set["pool-size"] {
		spec.PoolSize = *pool
	}
	if set["iterations"] {
		spec.Iterations = *iterations
	}
	if set["resolution"] {
		spec.Resolution = *resolution
	}
	if set["type"] {
		spec.Type = *typ
	}
	if set["strategy"] {
		spec.Strategy = *strategy
	}
	if set["timeout"] {
		spec.Timeout = *timeout
	}
	if err := applyUsers(&spec, users); err != nil {
		return err
	}
	if err := applyParams(&spec, params); err != nil {
		return err
	}
	if err := spec.Validate(); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	logw := os.Stderr
	opts := sim.RunOptions{Log: logw, Keep: *keep}
	if *quiet {
		opts.Log = nil
	}
	rep := &sim.Report{Generated: time.Now()}
	targets := []string{*uri}
	if *compare != "" {
		targets = append(targets, *compare)
	}
	for _, t := range targets {
		o := opts
		target := t
		if target == "" {
			u, stopLode, err := sim.Embedded()
			if err != nil {
				return err
			}
			defer stopLode()
			target = u
			o.Label = "embedded Lode, temporary data directory"
		}
		if *adv {
			withAdvice(&o, logw)
		}
		fmt.Fprintf(logw, "lode sim: %s against %s: %s\n", spec.Name, target, report.Describe(&spec))
		res, err := sim.Run(ctx, spec, target, o)
		if err != nil {
			return err
		}
		res.P99TargetMs = float64(*p99) / float64(time.Millisecond)
		rep.Runs = append(rep.Runs, res)
	}
	if err := report.WriteTable(os.Stdout, rep); err != nil {
		return err
	}
	if err := report.WriteAll(*out, rep); err != nil {
		return err
	}
	fmt.Fprintf(logw, "report written to %s/{%s,%s,%s}\n", strings.TrimRight(*out, "/"), report.TableFile, report.JSONFile, report.HTMLFile)
	return nil
}

func applyUsers(spec *sim.Spec, users []string) error {
	for _, u := range users {
		name, val, named := strings.Cut(u, "=")
		if !named {
			val = name
		}
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 {
			return fmt.Errorf("sim run: --users %q: want N or SCENARIO=N", u)
		}
		found := false
		for i := range spec.Scenarios {
			if !named || spec.Scenarios[i].Scenario == name {
				spec.Scenarios[i].Users = n
				found = true
			}
		}
		if !found {
			return fmt.Errorf("sim run: --users %q: no scenario %q in %s", u, name, spec.Name)
		}
	}
	return nil
}

func applyParams(spec *sim.Spec, params []string) error {
	for _, kv := range params {
		scen := ""
		if k, _, _ := strings.Cut(kv, "="); strings.Contains(k, ".") {
			scen, kv, _ = strings.Cut(kv, ".")
		}
		for i := range spec.Scenarios {
			ss := &spec.Scenarios[i]
			if scen != "" && ss.Scenario != scen {
				continue
			}
			if ss.Params == nil {
				ss.Params = sim.Params{}
			}
			if err := ss.Params.ParseParam(kv); err != nil {
				return err
			}
		}
	}
	return nil
}

// withAdvice makes a run end with the index advisor: its shapes come from
// the target's $queryStats, or, on a server without it, from a recorder
// listening to the load clients' commands (advise.Recorder).
func withAdvice(o *sim.RunOptions, logw io.Writer) {
	rec := advise.NewRecorder()
	o.Monitor = rec.Monitor()
	o.BeforeTeardown = func(ctx context.Context, ctl *mongo.Client, res *sim.Result) error {
		src := advise.QueryStatsSource(ctl)
		if _, err := src(ctx); errors.Is(err, advise.ErrNoQueryStats) {
			fmt.Fprintln(logw, "lode sim: the target has no $queryStats; advising from the recorded commands")
			src = rec.Source(ctl, 32)
		}
		rep, err := advise.Run(ctx, ctl, src, advise.Options{})
		if err != nil {
			return err
		}
		var text, js bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			return err
		}
		if err := rep.WriteJSON(&js); err != nil {
			return err
		}
		res.Advice, res.AdviceJSON = text.String(), js.Bytes()
		return nil
	}
}
