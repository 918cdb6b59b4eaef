package server

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestGenArgsMatchWalks: the checks that read a command's generic
// arguments from its one-pass scan (a command from the wire) decide as
// the walks over the document they replace: same values, same first
// error, and a repeated argument leaves the walks to decide.
func TestGenArgsMatchWalks(t *testing.T) {
	lsid := lsidDoc(3)
	build := func(f func(b *bsoncore.DocumentBuilder)) bsoncore.Document {
		b := bsoncore.NewDocumentBuilder().AppendString("find", "c")
		f(b)
		return b.Build()
	}
	cmds := []bsoncore.Document{
		build(func(b *bsoncore.DocumentBuilder) { b.AppendString("$db", "d") }),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendDocument("lsid", lsid).AppendInt64("txnNumber", 4).AppendBoolean("autocommit", false).
				AppendBoolean("startTransaction", true).AppendDocument("readConcern", bsoncore.NewDocumentBuilder().AppendString("level", "snapshot").Build()).
				AppendString("$db", "d").AppendInt32("maxTimeMS", 9)
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendInt32("lsid", 1).AppendString("txnNumber", "x").AppendString("$db", "d")
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendString("txnNumber", "x").AppendInt32("lsid", 1).AppendString("$db", "d")
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendString("autocommit", "no").AppendInt32("readConcern", 1).AppendDocument("writeConcern", bsoncore.NewDocumentBuilder().Build())
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendInt64("txnNumber", 1).AppendInt64("txnNumber", 2).AppendString("$db", "d")
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendString("$db", "first").AppendString("$db", "second").AppendInt32("maxTimeMS", 1).AppendString("maxTimeMS", "x")
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendString("apiVersion", "1").AppendBoolean("apiStrict", true).AppendBoolean("apiDeprecationErrors", true)
		}),
		build(func(b *bsoncore.DocumentBuilder) {
			b.AppendInt32("apiStrict", 1).AppendInt32("apiVersion", 1)
		}),
		build(func(b *bsoncore.DocumentBuilder) { b.AppendBoolean("apiStrict", false) }),
		build(func(b *bsoncore.DocumentBuilder) { b.AppendString("apiVersion", "2") }),
		bsoncore.NewDocumentBuilder().AppendString("lsid", "x").AppendDocument("lsid", lsid).Build(),
		bsoncore.NewDocumentBuilder().AppendString("$db", "x").AppendInt32("ping", 1).Build(),
	}
	failed := 0
	for i, cmd := range cmds {
		name, desc := commandName(cmd.Index(0).KeyBytes())
		walked := &Request{Name: name, Cmd: cmd, cmd: desc}
		scanned := &Request{Name: name, Cmd: cmd, cmd: desc, trusted: true}
		scanned.gen.scan(cmd)
		if i == 5 || i == 6 || i == 11 {
			if scanned.gen.ok {
				t.Fatalf("%d %v: a repeated argument left the scan ok", i, cmd)
			}
			continue
		}
		if !scanned.gen.ok {
			t.Fatalf("%d %v: scan not ok", i, cmd)
		}
		wa, werr := parseSessionArgs(walked)
		sa, serr := parseSessionArgs(scanned)
		if serr != nil {
			failed++
		}
		if fmt.Sprint(wa, werr) != fmt.Sprint(sa, serr) {
			t.Errorf("%d %v: session args\nwalked  %v %v\nscanned %v %v", i, cmd, wa, werr, sa, serr)
		}
		if w, s := fmt.Sprint(checkAPIParams(walked)), fmt.Sprint(checkAPIParams(scanned)); w != s {
			t.Errorf("%d %v: API params: walked %s, scanned %s", i, cmd, w, s)
		}
		for a := genArg(0); a < numGenArgs; a++ {
			wv, werr := walked.arg(a)
			sv, serr := scanned.arg(a)
			if (werr == nil) != (serr == nil) || !wv.Equal(sv) {
				t.Errorf("%d %v: %s: walked %v %v, scanned %v %v", i, cmd, genArgNames[a], wv, werr, sv, serr)
			}
		}
	}
	if failed < 3 {
		t.Fatalf("only %d of the commands failed their session arguments: the cases test too little", failed)
	}
}
