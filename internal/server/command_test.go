package server

import (
	"context"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestEveryCommandDecidesEveryTrait: a registered command must say yes or
// no to every trait the server asks about it (command.go); the zero value
// means it forgot, and nothing else may default silently.
func TestEveryCommandDecidesEveryTrait(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		if u := c.undecidedTraits(); len(u) > 0 {
			t.Errorf("command %s leaves undecided: %s", n, strings.Join(u, ", "))
		}
		if !c.has(n) {
			t.Errorf("command %s is registered under a name it does not have", n)
		}
		if c.sameAs != "" && lookupCommand(c.sameAs) == noCommand {
			t.Errorf("command %s is a form of %s, which is not registered", n, c.sameAs)
		}
		if c.shape != nil && !c.observe.has(onColl) {
			t.Errorf("command %s is counted per query shape but names no collection", n)
		}
		if c.shape != nil && c.shape.perStatement && c.stmts == "" {
			t.Errorf("command %s is shaped per statement but names no statements field", n)
		}
		if c.stmts != "" && c.retryable != yes {
			t.Errorf("command %s names statements but is not a retryable write", n)
		}
		if c.retry != nil && c.retryable != yes {
			t.Errorf("command %s has a retry form but is not a retryable write", n)
		}
		if f := c.retry; f != nil && (f.answer == nil) == (c.stmts == "") {
			t.Errorf("command %s: a retry is answered either from its statements or from its image", n)
		}
		if f := c.retry; f != nil && (f.answer == nil) != (f.imageAfter == nil) {
			t.Errorf("command %s: a retry form answers from an image it says how to keep, or neither", n)
		}
		if e := c.explain; e != nil && e.self == nil && e.plan == nil && e.onView != nil {
			t.Errorf("command %s is rewritten for explain on a view but explain refuses it", n)
		}
	}
}

// TestUndecidedTraitsAreReported: the guard tells a forgotten trait from
// an explicit no.
func TestUndecidedTraitsAreReported(t *testing.T) {
	h := func(context.Context, *Server, *Request) (bsoncore.Document, error) { return nil, nil }
	if a := admin(h, anyone(), "x"); len(a.undecidedTraits()) != 0 {
		t.Fatalf("admin leaves %v undecided", a.undecidedTraits())
	}
	c := command{names: []string{"x"}, handler: h, authz: anyone(), api: apiNotV1, inTxn: no,
		snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no, observe: observed(opCommand)}
	if u := c.undecidedTraits(); len(u) != 1 || u[0] != "retryable" {
		t.Fatalf("undecided = %v, want [retryable]", u)
	}
	c.retryable = yes
	if u := c.undecidedTraits(); len(u) != 1 || u[0] != "retry" {
		t.Fatalf("a retryable write without its retry form: undecided = %v, want [retry]", u)
	}
	if u := (&command{names: []string{"x"}, handler: h}).undecidedTraits(); len(u) != 9 {
		t.Fatalf("an empty descriptor leaves %v undecided, want all 9 traits", u)
	}
}

// TestCommandTraits spot-checks descriptors against what the tables they
// replaced said.
func TestCommandTraits(t *testing.T) {
	for _, c := range []struct {
		name string
		ok   func(*command) bool
	}{
		{"find", func(c *command) bool {
			return c.api == apiV1 && c.inTxn == yes && c.snapshotRead == yes && c.explain.explainable() &&
				c.observe.op == opQuery && c.observe.has(cursorReply) && c.shape != nil
		}},
		{"findandmodify", func(c *command) bool { return c.retryable == yes && c.names[0] == "findAndModify" }},
		{"isMaster", func(c *command) bool { return c.api == apiNotV1 && c.servedWhenFailed && c.sameAs == "hello" }},
		{"hello", func(c *command) bool { return c.api == apiV1 && c.servedWhenFailed }},
		{"testDeprecation", func(c *command) bool { return c.api == apiV1Deprecated && c.testOnly }},
		{"configureFailPoint", func(c *command) bool { return c.testOnly && c.authz.authOnly }},
		{"createUser", func(c *command) bool { return len(c.sensitive) == 1 && c.writeConcern == yes }},
		{"ping", func(c *command) bool { return c.api == apiV1 && c.authz.open && c.inTxn == no }},
	} {
		if d := lookupCommand(c.name); d == noCommand || !c.ok(d) {
			t.Errorf("%s: descriptor %+v", c.name, d)
		}
	}
	if !sameCommand("hello", "isMaster") || !sameCommand("isMaster", "hello") || !sameCommand("ismaster", "isMaster") {
		t.Error("hello and isMaster are the same command to a failCommand failpoint")
	}
}

// TestCommandHooksAsBefore pins the commands that declare explain plans,
// view rewrites, query-shape forms and statement fields to the name
// switches they replaced (cmd_explain.go's explainSpec, explainOnView,
// queryshape_cmd.go, snapshotRan's map, takesWriteConcern, the
// apiStrict pipeline check and the write counts of obs.go, slowlog.go and
// profiler.go, and applyOps's entry forms).
func TestCommandHooksAsBefore(t *testing.T) {
	with := func(pick func(*command) bool) []string {
		var out []string
		for n, c := range commands {
			if pick(c) {
				out = append(out, n)
			}
		}
		sort.Strings(out)
		return out
	}
	for _, c := range []struct {
		trait string
		pick  func(*command) bool
		want  string
	}{
		{"explainable", func(c *command) bool { return c.explain.explainable() },
			"aggregate count delete distinct find findAndModify findandmodify update"},
		{"explains itself", func(c *command) bool { return c.explain.self != nil }, "aggregate"},
		{"explained on a view", func(c *command) bool { return c.explain.onView != nil }, "count distinct find"},
		{"query shaped", func(c *command) bool { return c.shape != nil },
			"aggregate count delete distinct find findAndModify findandmodify update"},
		{"shaped per statement", func(c *command) bool { return c.shape != nil && c.shape.perStatement }, "delete update"},
		{"statements", func(c *command) bool { return c.stmts != "" }, "delete insert update"},
		{"retry form", func(c *command) bool { return c.retry != nil }, "delete findAndModify findandmodify insert update"},
		{"retry answered from an image", func(c *command) bool { return c.retry != nil && c.retry.answer != nil }, "findAndModify findandmodify"},
		{"retry counts nModified and upserted", func(c *command) bool {
			return c.retry != nil && c.retry.counts&(countModified|countUpserted) != 0
		}, "update"},
		{"write concern by request", func(c *command) bool { return c.writeConcernWhen != nil }, "aggregate"},
		{"apiStrict argument check", func(c *command) bool { return c.apiStrictArgs != nil }, "aggregate"},
		{"write counts in a findAndModify reply", func(c *command) bool { return c.observe.has(modifyReply) }, "findAndModify findandmodify"},
		{"ends or kills sessions", func(c *command) bool { return c.ofSessions },
			"endSessions killAllSessions killAllSessionsByPattern killSessions"},
		{"creates", func(c *command) bool { return c.creates }, "create createIndexes"},
		{"on a cursor", func(c *command) bool { return c.onCursor }, "getMore killCursors"},
		{"outlives its client", func(c *command) bool { return c.outlivesClient }, "createIndexes"},
		{"applyOps entry form", func(c *command) bool { return c.applyOpsEntry != nil },
			"applyOps create createIndexes renameCollection"},
		{"applyOps gone is applied", func(c *command) bool { return c.applyOpsGoneOK }, "drop"},
	} {
		if got := strings.Join(with(c.pick), " "); got != c.want {
			t.Errorf("%s: %s, want %s", c.trait, got, c.want)
		}
	}
}

// TestRetryFormsAsBefore pins the retry forms to the per-command cases of
// session_retry.go they replaced: the default statement results and what
// a change counts.
func TestRetryFormsAsBefore(t *testing.T) {
	for name, want := range map[string]stmtResult{"insert": {n: 1}, "delete": {n: 1}, "update": {n: 1, nModified: 1}} {
		if got := lookupCommand(name).retry.dflt; got.n != want.n || got.nModified != want.nModified || got.upserted.Type != 0 {
			t.Errorf("%s: default result %+v, want %+v", name, got, want)
		}
	}
	post := bsoncore.NewDocumentBuilder().AppendInt32("_id", 7).Build()
	var del, upd stmtResult
	for _, op := range []byte{'d', 'd'} {
		lookupCommand("delete").retry.count(&del, op, nil)
	}
	for _, op := range []byte{'u', 'i'} {
		lookupCommand("update").retry.count(&upd, op, post)
	}
	if del.n != 2 || del.nModified != 0 || del.upserted.Type != 0 {
		t.Errorf("delete counts %+v", del)
	}
	if upd.n != 2 || upd.nModified != 1 || upd.upserted.AsInt32() != 7 {
		t.Errorf("update counts %+v", upd)
	}
	if lookupCommand("insert").retry.counts != 0 {
		t.Error("insert records no statement result")
	}
}
