package server

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestFailCommandMatchesHandshake: a connection's first hello matches
// appName by the metadata it carries, so a driver's handshake can be
// failed; later commands match by the metadata kept on the connection.
func TestFailCommandMatchesHandshake(t *testing.T) {
	app := func(name string) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendDocument("application",
			bsoncore.NewDocumentBuilder().AppendString("name", name).Build()).Build()
	}
	data := bsoncore.NewDocumentBuilder().
		AppendArray("failCommands", bsoncore.NewArrayBuilder().AppendString("hello").AppendString("ping").Build()).
		AppendString("appName", "victim").Build()
	hello := func(name string) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendInt32("hello", 1).AppendDocument("client", app(name)).Build()
	}
	ping := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).Build()
	c := &conn{id: 7}
	for _, tc := range []struct {
		name   string
		cmd    bsoncore.Document
		client bsoncore.Document
		want   bool
	}{
		{"hello", hello("victim"), nil, true},
		{"hello", hello("other"), nil, false},
		{"ping", ping, nil, false},
		{"ping", ping, app("victim"), true},
		{"ping", ping, app("other"), false},
	} {
		c.client = tc.client
		if got := failCommandMatches(data, &Request{Name: tc.name, Cmd: tc.cmd, conn: c}); got != tc.want {
			t.Errorf("%s %v (connection metadata %v): %v, want %v", tc.name, tc.cmd, tc.client, got, tc.want)
		}
	}
	thread := bsoncore.NewDocumentBuilder().
		AppendArray("failCommands", bsoncore.NewArrayBuilder().AppendString("ping").Build()).
		AppendString("threadName", "conn7").Build()
	if !failCommandMatches(thread, &Request{Name: "ping", Cmd: ping, conn: c}) {
		t.Error("threadName conn7 does not match connection 7")
	}
	c.id = 8
	if failCommandMatches(thread, &Request{Name: "ping", Cmd: ping, conn: c}) {
		t.Error("threadName conn7 matches connection 8")
	}
}
