package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/procs"
	"github.com/lodedb/lode/internal/server"
	"github.com/lodedb/lode/internal/storage"
)

func mongoVersion() string { return server.MongoVersion }

// serverGCPercent is the Go GC target of `lode serve` when GOGC is not set.
// The server's Go heap is small (Pebble's block cache lives outside it)
// and short-lived garbage is most of what each request makes, so a
// collection every 3x growth instead of 2x costs little memory and, on
// queue claims at w:1, measured 12% more throughput (docs/benchmarks.md).
const serverGCPercent = 300

// loneGCPercent is the GC target while the processor adapter runs the
// scheduler on one processor (internal/procs: requests come one at a
// time and the server uses under 0.75 of a core). A lone client's
// server has a live heap of about 3 MB; at serverGCPercent the allocator
// hands out 12 to 16 MB of memory between two collections, which the
// caches no longer hold when the allocations come back to it, and at 50
// about 4.5 MB. One j:true client's insert cost about 7 µs less server
// CPU with GOGC=50 in 16 of 24 pairs, and 10 µs less with this build in 9
// of 12 (docs/benchmarks.md, "A smaller collector cycle for one
// client"). The collector's own CPU per allocated byte grows as the
// target falls, but traffic that leaves a core three-quarters idle
// allocates little; a load, which needs the larger target, uses nearly a
// core and runs on every processor.
const loneGCPercent = 50

// userGOGC reports whether the user set GOGC, which lode serve then keeps.
func userGOGC() bool { return os.Getenv("GOGC") != "" }

// setServerGC applies serverGCPercent unless the user set GOGC.
func setServerGC(log *slog.Logger) {
	if userGOGC() {
		return
	}
	debug.SetGCPercent(serverGCPercent)
	log.Debug("GC target set", mongolog.KeyComponent, "CONTROL", mongolog.KeyCtx, "initandlisten", "gogc", serverGCPercent)
}

// gcPercentFor is the GC target for procs processors (the adapter's
// choice): loneGCPercent on one, serverGCPercent otherwise.
func gcPercentFor(procs int) int {
	if procs == 1 {
		return loneGCPercent
	}
	return serverGCPercent
}

// runServe starts the server and blocks until SIGINT or SIGTERM.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	setUsage(fs, "lode serve [flags]   (mongod's flag names work too: --port, --bind_ip, --dbpath, --logpath, --config ...)")
	addr := fs.String("addr", "127.0.0.1:27017", "listen address")
	dir := fs.String("dir", "./lode-data", "data directory")
	level := fs.String("log-level", "info", "log level: debug, info, warn, error")
	logFormat := fs.String("log-format", "text", "log format: text (key=value lines) or json (mongod's structured log lines: t, s, c, id, ctx, msg, attr)")
	slowMS := fs.Int64("slowms", server.DefaultSlowOpThreshold.Milliseconds(), "mongod's slowms: commands slower than this many milliseconds are logged as \"Slow query\" and, at profiling level 1, profiled (0: every command); the profile command changes it at runtime")
	slowRate := fs.Float64("slow-op-sample-rate", 1, "mongod's slowOpSampleRate: the fraction of slow commands logged and profiled, between 0 and 1")
	syncInterval := fs.Duration("sync-interval", 100*time.Millisecond, "how often the WAL is fsynced (MongoDB's journal commit interval)")
	ttlSleep := fs.Duration("ttl-monitor-sleep", 60*time.Second, "interval of the TTL monitor (MongoDB's ttlMonitorSleepSecs)")
	standalone := fs.Bool("standalone", false, "do not present a one-member replica set (no retryable writes or transactions)")
	replSet := fs.String("replset", server.DefaultReplSetName, "replica-set name reported by hello")
	advertise := fs.String("advertise-addr", "", "host:port reported in hello's hosts and me (default: the listen address)")
	maxConns := fs.Int("max-connections", 0, "maximum open client connections, mongod's maxIncomingConnections (0: 80% of the open-file limit, at most 1000000)")
	msgTimeout := fs.Duration("message-timeout", server.DefaultMessageTimeout, "time a request may take to arrive once it has begun; a client stalled mid-message is disconnected (0: no limit)")
	budgetMB := fs.Int64("memory-budget-mb", defaultMemoryBudgetMB(), "server-wide memory budget in MiB for large requests, blocking sorts and $group tables, which also sets the Go runtime's soft memory limit below it (0: none; default half the machine's memory, with a 512 MiB soft limit; GOMEMLIMIT, when set, is the limit)")
	oplogMB := fs.Int64("oplog-size-mb", engine.DefaultOplogBytes>>20, "bound of the operation log (local.oplog.rs, read by change streams and mongodump --oplog) in MiB, oldest entries trimmed first; 0 turns the oplog off, and with it change streams")
	var cacheGB float64
	cacheHelp := "size in GiB of the storage engine's block cache, like mongod's --wiredTigerCacheSizeGB (from 0.25 to 10000)"
	fs.Float64Var(&cacheGB, "cache-size-gb", float64(storage.DefaultCacheSize)/(1<<30), cacheHelp)
	fs.Float64Var(&cacheGB, "wiredTigerCacheSizeGB", float64(storage.DefaultCacheSize)/(1<<30), "the same as --cache-size-gb")
	hugePages := fs.String("huge-pages", hugePagesDefault, "whether C's allocator, which holds the block cache and memtables, asks for transparent huge pages: try (glibc's huge page tunable, set at start; the default) or off, like PostgreSQL's huge_pages")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics (e.g. 127.0.0.1:9216): opcounters, latency histograms, connections, cursors, storage engine and memory figures; off when empty")
	adaptProcs := fs.Bool("adapt-procs", true, "run the Go scheduler on one processor while requests arrive one at a time and the server uses under three quarters of a core, on all of them otherwise: a lone client's requests then cost fewer thread wake-ups; off when GOMAXPROCS is set")
	pprofAddr := fs.String("pprof", "", "serve Go's net/http/pprof profiles on this address (e.g. 127.0.0.1:6060); off when empty")
	tlsf := addTLSFlags(fs)
	authOn := fs.Bool("auth", false, "require clients to authenticate (SCRAM-SHA-256/SCRAM-SHA-1) and enforce users' roles, like mongod --auth; while no user exists a loopback client may create the first one in admin")
	insecureOpen := fs.Bool("insecure-no-auth", false, "allow a non-loopback --addr without --auth: anyone who reaches the port can read, write and drop every database")
	var startup server.Config // --enable-test-commands and --set-parameter
	fs.BoolVar(&startup.TestCommands, "enable-test-commands", false, "enable MongoDB's test commands (configureFailPoint with the failCommand failpoint) for testing drivers and applications; never in production")
	cliParams := map[string]bool{} // the parameters --set-parameter set, which win over the configuration file's
	var params [][2]string         // every startup parameter set, for getCmdLineOpts
	fs.Func("set-parameter", "set a startup parameter, as mongod --setParameter name=value: enableTestCommands=1|0, logicalSessionRefreshMillis=N (default 300000), localLogicalSessionTimeoutMinutes=N (default 30)", func(v string) error {
		name, val, _ := strings.Cut(v, "=")
		cliParams[name] = true
		params = append(params, [2]string{name, val})
		return startupParameter(&startup, v)
	})
	configPath := fs.String("config", "", "read a mongod YAML configuration file (docs/configuration.md lists the options Lode reads and refuses); flags given on the command line win over it")
	port := fs.Int("port", 0, "listen port, mongod's --port: with --bind_ip, instead of --addr (default 27017)")
	bindIP := fs.String("bind_ip", "", "listen address, or addresses separated by commas, mongod's --bind_ip: with --port, instead of --addr (default 127.0.0.1)")
	logPath := fs.String("logpath", "", "write the log to this file instead of stderr, mongod's --logpath; the logRotate command and SIGUSR1 rotate it")
	logAppend := fs.Bool("logappend", false, "with --logpath, append to an existing log file instead of renaming it aside with a timestamp suffix, mongod's --logappend")
	logRotate := fs.String("logRotate", "rename", "how the logRotate command rotates --logpath's file, mongod's --logRotate: rename (to FILE.<UTC time>, then a new FILE) or reopen (after logrotate moved it; needs --logappend)")
	tzInfo := fs.String("timeZoneInfo", "", "directory of the time zone database, mongod's --timeZoneInfo (default: the system's, then Go's own)")
	addAliases(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := givenFlags(fs)
	if given["addr"] && (given["port"] || given["bind_ip"]) {
		return usageError{"give either --addr host:port or mongod's --bind_ip and --port, not both"}
	}
	if given["addr"] {
		given["port"], given["bind_ip"] = true, true // the configuration file's net.port and net.bindIp give way too
	}
	if *configPath != "" {
		fileParams, err := applyConfig(fs, *configPath, given, cliParams)
		if err != nil {
			return usageError{err.Error()}
		}
		params = append(params, fileParams...)
		for _, p := range fileParams {
			if err := startup.SetStartupParameter(p[0], p[1]); err != nil {
				return usageError{fmt.Sprintf("configuration file %s: setParameter.%s: %v", *configPath, p[0], err)}
			}
		}
	}
	addrs, err := listenAddrs(*addr, *bindIP, *port)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := checkHugePages(*hugePages); err != nil {
		return usageError{err.Error()}
	}
	if *tzInfo != "" {
		if st, err := os.Stat(*tzInfo); err != nil || !st.IsDir() {
			return usageError{fmt.Sprintf("bad --timeZoneInfo %q: want the directory of a time zone database (e.g. /usr/share/zoneinfo)", *tzInfo)}
		}
		os.Setenv("ZONEINFO", *tzInfo) // where Go's time package looks first
	}
	logOut, logFile, err := openLogOutput(*logPath, *logAppend, *logRotate)
	if err != nil {
		return err
	}
	if logFile != nil {
		defer logFile.Close()
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(strings.ToUpper(*level))); err != nil {
		return fmt.Errorf("bad --log-level %q: %w", *level, err)
	}
	log, err := newLogger(logOut, *logFormat, lvl)
	if err != nil {
		return err
	}
	slog.SetDefault(log)
	if *slowMS < 0 {
		return fmt.Errorf("bad --slowms %d: want 0 or more milliseconds", *slowMS)
	}
	if *slowRate < 0 || *slowRate > 1 {
		return fmt.Errorf("bad --slow-op-sample-rate %v: want a fraction between 0 and 1", *slowRate)
	}
	tlsMode, tlsConfig, err := tlsf.config(log)
	if err != nil {
		return err
	}

	if *pprofAddr != "" {
		if err := startPprof(*pprofAddr, log); err != nil {
			return err
		}
	}
	cacheBytes, err := storage.CacheSizeFromGB(cacheGB)
	if err != nil || cacheGB == 0 {
		return fmt.Errorf("bad --cache-size-gb %v: want a size in GiB between %v and %v", cacheGB, storage.MinCacheSizeGB, storage.MaxCacheSizeGB)
	}
	setServerGC(log)
	// The instance's memory budget. Reservations may take three quarters
	// of it; the rest is headroom for what they do not count (the runtime,
	// connection buffers, the storage engine's memtables).
	budget := new(membudget.Budget)
	budget.SetLimit(*budgetMB << 20 / 4 * 3)
	budgetGiven := false
	fs.Visit(func(f *flag.Flag) { budgetGiven = budgetGiven || f.Name == "memory-budget-mb" })
	if os.Getenv("GOMEMLIMIT") == "" && (!budgetGiven || *budgetMB > 0) {
		// The Go heap's soft limit (heaplimit.go): the collector works
		// harder rather than let GC slack take RSS past it.
		debug.SetMemoryLimit(goMemoryLimit(*budgetMB<<20, budgetGiven, cacheBytes, residentFileBytes()))
	}
	for _, a := range addrs {
		if err := checkExposure(a, *authOn, *insecureOpen, log); err != nil {
			return err
		}
	}
	oplogBytes, err := oplogBound(*oplogMB)
	if err != nil {
		return err
	}
	// Listen first: a port in use is reported before the data directory
	// is created or locked.
	lns := make([]net.Listener, 0, len(addrs))
	closeListeners := func() {
		for _, l := range lns {
			l.Close()
		}
	}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			closeListeners()
			return listenError(a, err)
		}
		lns = append(lns, ln)
	}
	eng, err := engine.Open(*dir, engine.Options{SyncInterval: *syncInterval, Logger: log.With(mongolog.KeyComponent, "STORAGE"), TTLMonitorSleep: *ttlSleep, Budget: budget,
		OplogBytes: oplogBytes, CacheSize: cacheBytes, OnFailure: func(f *storage.Failure) { storageFatal(log, f) }})
	if err != nil {
		closeListeners()
		return openError(*dir, err)
	}
	ln := lns[0]
	if *msgTimeout == 0 {
		*msgTimeout = -1 // Config's "no limit"
	}
	warnFileLimit(log)
	// The shutdown command (db.shutdownServer()) ends the server as a
	// signal does.
	shutdownRequested := make(chan struct{}, 1)
	requestShutdown := func(force bool, timeoutSecs int64) {
		select {
		case shutdownRequested <- struct{}{}:
		default:
		}
	}
	srv := server.New(eng, server.Config{Logger: log, CmdLine: os.Args, CmdLineParsed: parsedOptions(fs, *configPath, params), MaxConnections: *maxConns, Auth: *authOn, MessageTimeout: *msgTimeout,
		Standalone: *standalone, ReplSetName: *replSet, AdvertiseAddr: advertiseOr(*advertise, ln.Addr()),
		TLSMode: tlsMode, TLS: tlsConfig, TestCommands: startup.TestCommands,
		SessionRefresh: startup.SessionRefresh, SessionTimeoutMinutes: startup.SessionTimeoutMinutes,
		SlowOpThreshold: slowThreshold(*slowMS), SlowOpSampleRate: sampleRateOrNone(*slowRate),
		Shutdown: requestShutdown, RotateLog: rotateLog(logFile)})
	if *metricsAddr != "" {
		stopMetrics, err := startMetrics(*metricsAddr, srv, log)
		if err != nil {
			_ = srv.Close()
			for _, l := range lns {
				l.Close()
			}
			eng.Close()
			return err
		}
		defer stopMetrics()
	}
	if startup.TestCommands {
		log.Warn("test commands are enabled: any client that may run commands can make the server fail them (configureFailPoint); never in production")
	}
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigc)
	if logFile != nil {
		stopRotate := rotateOnSignal(log, logFile) // SIGUSR1, as mongod
		defer stopRotate()
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	errc := make(chan error, len(lns))
	for _, l := range lns {
		go func() { errc <- srv.Serve(l) }()
	}
	go returnMemory(ctx, log)
	if *adaptProcs && os.Getenv("GOMAXPROCS") == "" {
		userGC := userGOGC()
		adapter := procs.Start(runtime.GOMAXPROCS(0), func(n int) {
			if !userGC {
				debug.SetGCPercent(gcPercentFor(n))
			}
			log.Debug("processors", mongolog.KeyComponent, "CONTROL", "gomaxprocs", n, "pinnedTo", procs.Current().Pinned())
		})
		adapter.KeepNearDisk(*dir)
		defer adapter.Stop()
	}
	log.Info("lode started", mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDLodeStarted, mongolog.KeyCtx, "initandlisten",
		"addr", listenerAddrs(lns), "dir", *dir, "version", version, "auth", *authOn, "tls", tlsMode.String(),
		"syncInterval", syncInterval.String(), "oplogSizeMB", *oplogMB, "cacheSizeGB", cacheGB, "replSet", replSetLabel(*standalone, *replSet),
		"hugePages", *hugePages, "glibcTunables", os.Getenv("GLIBC_TUNABLES"))
	select {
	case sig := <-sigc:
		logSignal(log, sig)
	case <-shutdownRequested:
		// The shutdown command logged "Terminating via shutdown command".
	case err := <-errc:
		if err != nil {
			log.Error("server stopped", "err", err, mongolog.KeyComponent, "NETWORK", mongolog.KeyID, mongolog.IDServerStopped)
		}
	}
	stop()
	_ = srv.Close()
	if err := eng.Close(); err != nil {
		return fmt.Errorf("close engine: %w", err)
	}
	log.Info("Now exiting", mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDNowExiting, mongolog.KeyCtx, "SignalHandler")
	log.Info("shutdown complete", mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDShutdownComplete, mongolog.KeyCtx, "SignalHandler")
	return nil
}

// newLogger returns the server's logger writing to w in the
// --log-format asked for.
func newLogger(w io.Writer, format string, lvl slog.Level) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(mongolog.NewTextHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl, ReplaceAttr: fatalLevelName}))), nil
	case "json":
		return slog.New(mongolog.NewHandler(w, lvl)), nil
	}
	return nil, fmt.Errorf("bad --log-format %q: want text or json", format)
}

// slowThreshold converts --slowms to Config.SlowOpThreshold (whose 0 is
// the default and negative "every command").
func slowThreshold(ms int64) time.Duration {
	if ms == 0 {
		return -1
	}
	return time.Duration(ms) * time.Millisecond
}

// sampleRateOrNone converts --slow-op-sample-rate to
// Config.SlowOpSampleRate; 0 (log no slow command) is kept as the
// smallest positive rate, since Config's 0 means 1.
func sampleRateOrNone(r float64) float64 {
	if r == 0 {
		return math.SmallestNonzeroFloat64
	}
	return r
}

// signalNames are strsignal's names of the signals lode serve stops on,
// which mongod's "Received signal" line reports as error.
var signalNames = map[syscall.Signal]string{syscall.SIGINT: "Interrupt", syscall.SIGTERM: "Terminated"}

// logSignal writes mongod's "Received signal" line (log id 23377).
func logSignal(log *slog.Logger, sig os.Signal) {
	n := 0
	name := sig.String()
	if s, ok := sig.(syscall.Signal); ok {
		n = int(s)
		if sn, ok := signalNames[s]; ok {
			name = sn
		}
	}
	log.Info("Received signal", mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDReceivedSignal,
		mongolog.KeyCtx, "SignalHandler", "signal", n, "error", name)
}

// advertiseOr returns addr, or the listen address when addr is empty. A
// wildcard listen address (0.0.0.0, ::) is no address a client can
// reach: it gives "", and the server then reports each connection's local
// address (the address that client reached it at).
func advertiseOr(addr string, listen net.Addr) string {
	if addr != "" {
		return addr
	}
	if ta, ok := listen.(*net.TCPAddr); ok && (ta.IP == nil || ta.IP.IsUnspecified()) {
		return ""
	}
	return listen.String()
}

// oplogBound converts --oplog-size-mb to engine.Options.OplogBytes: a
// positive size in MiB, or 0 for no oplog.
func oplogBound(mb int64) (int64, error) {
	switch {
	case mb < 0 || mb > 1<<30:
		return 0, fmt.Errorf("bad --oplog-size-mb %d: want a size in MiB between 1 and %d, or 0 for no oplog", mb, int64(1<<30))
	case mb == 0:
		return -1, nil
	}
	return mb << 20, nil
}

// startupParameter reads --set-parameter name=value into cfg, as mongod's
// --setParameter (server.Config.SetStartupParameter lists the names);
// runtime parameters are set with the setParameter command.
func startupParameter(cfg *server.Config, v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("want name=value, got %q", v)
	}
	return cfg.SetStartupParameter(name, val)
}

// replSetLabel is the replica set the startup line names: its name, or
// "none (standalone)".
func replSetLabel(standalone bool, name string) string {
	if standalone {
		return "none (standalone)"
	}
	return name
}
