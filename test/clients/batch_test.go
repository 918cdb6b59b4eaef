package clients

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/test/testenv"
)

// scriptCase is one client script run against a `lode serve` of its own
// (or the server at uri): what it was started with and the line the
// script prints when all its checks passed.
type scriptCase struct {
	script string
	serve  []string // lode serve flags
	ok     string   // printed by the script when it finished
	name   string   // the subtest's name; the script's when empty
	uri    string   // a server to run against instead of one of its own
}

// caseName is the case's subtest name.
func (c scriptCase) caseName() string {
	if c.name != "" {
		return c.name
	}
	return c.script
}

// runMongoshBatch runs the cases' scripts one after another in a single
// mongosh process (a mongosh start costs about 0.7 s of CPU, more than
// most scripts), each against its own server: it sets db to the case's
// server ("test" database, as `mongosh URI script` does) and load()s
// the script, whose top-level declarations stay its own. A script's
// uncaught error ends its case only. Each case is a subtest named after
// its script that fails, with the script's output, unless the script
// ran to the end and printed its ok line; SKIP lines are logged.
func runMongoshBatch(t *testing.T, cases []scriptCase) {
	t.Helper()
	mongosh := requireTool(t, "mongosh")
	list := batchList(t, cases)
	eval := testenv.MongoshBatchEval(t, list)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mongosh, "--quiet", "--norc", "--nodb", "--eval", eval)
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	if err != nil {
		t.Errorf("mongosh: %v\n%s", err, out)
	}
	checkBatch(t, "mongosh", cases, out)
}

// batchList starts a server for each case without a uri and returns the
// cases as the batch runner's scripts.
func batchList(t *testing.T, cases []scriptCase) []testenv.BatchScript {
	t.Helper()
	list := make([]testenv.BatchScript, len(cases))
	for i, c := range cases {
		uri := c.uri
		if uri == "" {
			uri = startServer(t, c.serve...).uri()
		}
		list[i] = testenv.BatchScript{Name: c.caseName(), URI: uri, File: c.script}
	}
	return list
}

// checkBatch splits a batch's output at the case markers and checks each
// case in a subtest named after its script (or its name).
func checkBatch(t *testing.T, client string, cases []scriptCase, out string) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.caseName(), func(t *testing.T) {
			part, ran, passed := testenv.BatchPart(out, c.caseName())
			if !ran {
				t.Fatalf("%s did not run; %s output:\n%s", c.caseName(), client, out)
			}
			if !passed {
				t.Fatalf("%s %s (%s):\n%s", client, c.script, c.caseName(), part)
			}
			if !strings.Contains(part, c.ok) {
				t.Fatalf("%s (%s) did not finish:\n%s", c.script, c.caseName(), part)
			}
			skips(t, part)
		})
	}
}

// pythonBatch runs each case as __main__ with sys.argv [script, uri],
// as `python3 script uri` would, catching what ends it (an exception,
// sys.exit) so that the next case runs; tracebacks go to stdout, which
// is unbuffered (-u), so they stay in their case's part of the output.
const pythonBatch = `import json, runpy, sys, traceback
for c in json.loads(sys.argv[1]):
    print("\n` + testenv.BatchBegin + `" + c["Name"] + ">>>")
    sys.argv = [c["File"], c["URI"]]
    try:
        runpy.run_path(c["File"], run_name="__main__")
        print("\n` + testenv.BatchPassed + `")
    except SystemExit as e:
        if e.code in (None, 0):
            print("\n` + testenv.BatchPassed + `")
        else:
            print("\n` + testenv.BatchFailed + `exit %r" % (e.code,))
    except BaseException:
        print("\n` + testenv.BatchFailed + `")
        traceback.print_exc(file=sys.stdout)
`

// runPythonBatch is runMongoshBatch for pymongo 3.11 scripts: one
// /usr/bin/python3 process runs them all (pymongo's background threads
// hold each process about half a second at exit).
func runPythonBatch(t *testing.T, cases []scriptCase) {
	t.Helper()
	py := requirePython(t)
	list := batchList(t, cases)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-u", "-c", pythonBatch, testenv.BatchJSON(t, list)).CombinedOutput()
	if err != nil {
		t.Errorf("python: %v\n%s", err, out)
	}
	checkBatch(t, "python", cases, string(out))
}

// TestPythonScripts runs the self-contained pymongo 3.11 scripts, each
// against its own server, in one Python process. Each subtest is what
// was a test of its own:
//
//	collation_pymongo.py          collations
//	timeseries_pymongo.py         time series collections: create, insert, indexes, errors, collStats
//	profiler_pymongo.py           pymongo's profiler helpers and $queryStats
//	geo_restaurants_pymongo.py    MongoDB's "Find Restaurants with Geospatial Queries" tutorial
//	geo2d_options_pymongo.py      a 2d index with bits, min and max
//	sessions_pymongo.py           the session cache, config.system.sessions, endSessions, killAllSessionsByPattern
//	stages19_pymongo.py           $redact, $graphLookup and $densify
//	text_pymongo.py               text search
//	views_pymongo.py              views
//	window_pymongo.py             $setWindowFields and $fill
//	seed003_*.py                  seed 003's hits per day (on a hand-computed data set), orders, transfer and event log code
//	txn_commit_timeout.py         commits with j:true and maxTimeMS 1 while background sync is off: the
//	                              journal wait can outlive maxTimeMS after the data is committed, and
//	                              pymongo must see UnknownTransactionCommitResult, retry only the
//	                              commit, and apply every transaction exactly once
//	txn_pymongo.py (3 variants)   a transaction and with_transaction, once per URI variant (uriVariants)
func TestPythonScripts(t *testing.T) {
	t.Parallel()
	runPythonBatch(t, append([]scriptCase{
		{script: "collation_pymongo.py", ok: "collation ok"},
		{script: "timeseries_pymongo.py", ok: "timeseries pymongo ok"},
		{script: "profiler_pymongo.py", ok: "profiler pymongo OK"},
		{script: "geo_restaurants_pymongo.py", ok: "geo tutorial ok"},
		{script: "geo2d_options_pymongo.py", ok: "geo2d options ok"},
		{script: "sessions_pymongo.py", serve: []string{"--set-parameter", "enableTestCommands=1"}, ok: "sessions pymongo OK"},
		{script: "stages19_pymongo.py", ok: "stages19 ok"},
		{script: "text_pymongo.py", ok: "text ok"},
		{script: "views_pymongo.py", ok: "views ok"},
		{script: "window_pymongo.py", ok: "window ok"},
		{script: "seed003_hits.py", ok: "seed003 hits OK"},
		{script: "seed003_orders.py", ok: "seed003 orders OK"},
		{script: "seed003_transfer.py", ok: "seed003 transfer OK"},
		{script: "seed003_eventlog.py", ok: "seed003 eventlog OK"},
		{script: "txn_commit_timeout.py", serve: []string{"--sync-interval", "1h"}, ok: "txn commit timeout OK"},
	}, uriVariantCases(t, "txn_pymongo.py", "txn pymongo OK")...))
}

// TestMongoshScripts runs the self-contained mongosh scripts, each
// against its own server, in one mongosh process. Each subtest is what
// was a test of its own:
//
//	collation_mongosh.js   collations
//	profiler_mongosh.js    mongosh's profiler helpers
//	explain_seed004.js     ensureIndex and .explain() / .explain("executionStats") on seed 004's plans
//	explain_aggregate.js   db.c.explain(verbosity).aggregate() on seed 003's pipeline
//	exprs_mongosh.js       $median, $percentile, trigonometry, bitwise, the JavaScript refusal
//	geo_mongosh.js         the geospatial reference examples
//	plancache_mongosh.js   the plan cache's handles through mongosh's helpers
//	sessions_mongosh.js    $listLocalSessions, refreshLogicalSessionCacheNow, $listSessions, killSessions
//	stages19_mongosh.js    $graphLookup and $densify
//	text_mongosh.js        text search
//	views_mongosh.js       views through mongosh's helpers
//	hashed_mongosh.js      hashed indexes through mongosh's helpers
//	clustered_mongosh.js   clustered collections through mongosh's helpers
//	timeseries_mongosh.js  time series collections through mongosh's helpers, expiry included
//	writes_mongosh.js      pipeline-style updates, write hints, $-prefixed upsert fields
//	replset_mongosh.js     rs.status(), rs.conf(), db.getReplicationInfo(),
//	                       db.printReplicationInfo() and replSetResizeOplog
//	standalone_mongosh.js  --standalone turns the replica-set identity off
//	seed000..003 scripts   the seeds' shell code; seed003_hits.js is seed 003's
//	                       aggregation on a hand-computed data set
//	seed004_queue.js       seed 004's shell code, with the TTL monitor started
//	                       at a one-second interval by flag (the script also
//	                       sets it with setParameter) and its explain assertions
//	txn_mongosh.js         session.startTransaction()/commitTransaction(), once
//	                       per URI variant (uriVariants)
func TestMongoshScripts(t *testing.T) {
	t.Parallel()
	runMongoshBatch(t, append([]scriptCase{
		{script: "collation_mongosh.js", ok: "collation OK"},
		{script: "profiler_mongosh.js", ok: "profile entries"},
		{script: "explain_seed004.js", ok: "explain seed004 OK"},
		{script: "explain_aggregate.js", ok: "explain aggregate OK"},
		{script: "exprs_mongosh.js", ok: "exprs OK"},
		{script: "geo_mongosh.js", ok: "geo OK"},
		{script: "plancache_mongosh.js", ok: "plancache OK"},
		{script: "sessions_mongosh.js", serve: []string{"--enable-test-commands"}, ok: "sessions mongosh OK"},
		{script: "stages19_mongosh.js", ok: "stages19 mongosh OK"},
		{script: "text_mongosh.js", ok: "text OK"},
		{script: "views_mongosh.js", ok: "views OK"},
		{script: "hashed_mongosh.js", ok: "hashed mongosh OK"},
		{script: "clustered_mongosh.js", ok: "clustered mongosh OK"},
		{script: "timeseries_mongosh.js", ok: "timeseries mongosh OK"},
		{script: "writes_mongosh.js", ok: "writes OK"},
		{script: "replset_mongosh.js", ok: "replset helpers OK"},
		{script: "standalone_mongosh.js", serve: []string{"--standalone"}, ok: "standalone OK"},
		{script: "seed000_recent.js", ok: "seed000 OK"},
		{script: "seed001_bucket.js", ok: "seed001 OK"},
		{script: "seed002_metadata.js", ok: "seed002 OK"},
		{script: "seed003_shell.js", ok: "seed003 shell OK"},
		{script: "seed003_hits.js", ok: "seed003 hits (mongosh) OK"},
		{script: "seed004_queue.js", serve: []string{"--ttl-monitor-sleep", "1s"}, ok: "seed004 OK explain"},
	}, uriVariantCases(t, "txn_mongosh.js", "txn mongosh OK")...))
}
