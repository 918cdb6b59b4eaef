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
		if c.observe.has(queryShaped) && !c.observe.has(onColl) {
			t.Errorf("command %s is counted per query shape but names no collection", n)
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
		snapshotRead: no, writeConcern: no, explain: no, applyOps: no, observe: observed(opCommand)}
	if u := c.undecidedTraits(); len(u) != 1 || u[0] != "retryable" {
		t.Fatalf("undecided = %v, want [retryable]", u)
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
			return c.api == apiV1 && c.inTxn == yes && c.snapshotRead == yes && c.explain == yes &&
				c.observe.op == opQuery && c.observe.has(cursorReply) && c.observe.has(queryShaped)
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
