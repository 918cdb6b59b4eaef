package clients

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestServeLogLines: with the text format at debug level, every line of
// `lode serve` ends with mongod's component, id and ctx; the startup line
// says how the server runs; a connection is logged once when accepted and
// once when it ends; a successful authentication is logged with mongod's
// id.
func TestServeLogLines(t *testing.T) {
	s := startServer(t, "--log-level", "debug", "--auth")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The localhost exception creates the first user.
	c, err := mongo.Connect(options.Client().ApplyURI(s.uri() + "?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "ops"}, {Key: "pwd", Value: "s3cret"},
		{Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	_ = c.Disconnect(ctx)
	c, err = mongo.Connect(options.Client().ApplyURI("mongodb://ops:s3cret@" + s.addr + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Disconnect(ctx)
	time.Sleep(200 * time.Millisecond) // the ends are logged as the server sees them
	s.stop()
	logs := s.logs.String()
	header := regexp.MustCompile(` component=\S+ id=\d+ ctx=\S+$`)
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if !header.MatchString(line) {
			t.Errorf("line without component, id and ctx at its end: %s", line)
		}
	}
	started := regexp.MustCompile(`msg="lode started" .*auth=true .*syncInterval=100ms oplogSizeMB=1024 cacheSizeGB=0.5 replSet=lode hugePages=try glibcTunables=\S* component=CONTROL id=9100001 ctx=initandlisten`)
	if !started.MatchString(logs) {
		t.Errorf("no startup line with auth, sync interval, oplog size, cache and replica set:\n%s", logs)
	}
	accepted := strings.Count(logs, `msg="Connection accepted"`)
	ended := strings.Count(logs, `msg="Connection ended"`)
	if accepted == 0 || accepted != ended || strings.Contains(logs, `msg="connection accepted"`) || strings.Contains(logs, `msg="connection closed"`) {
		t.Errorf("%d accepted, %d ended; want each connection once each way:\n%s", accepted, ended, logs)
	}
	if !regexp.MustCompile(`msg="Successfully authenticated" client=127\.0\.0\.1:\d+ mechanism=SCRAM-SHA-256 user=ops db=admin component=ACCESS id=5286306 ctx=conn\d+`).MatchString(logs) {
		t.Errorf("no line for the successful authentication:\n%s", logs)
	}
}
