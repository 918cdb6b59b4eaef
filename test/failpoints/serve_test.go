package failpoints

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

var addrRE = regexp.MustCompile(`lode started"? addr=(127\.0\.0\.1:\d+)`)

// serve starts `lode serve` with args on a free port and returns a client.
func serve(t *testing.T, args ...string) *mongo.Client {
	t.Helper()
	bin, err := testenv.LodeBinary()
	if err != nil {
		t.Fatalf("build lode: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--dir", filepath.Join(t.TempDir(), "db")}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() // our own child, by its PID
		cmd.Wait()
	})
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addrc <- m[1]:
				default:
				}
			}
		}
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(60 * time.Second):
		t.Fatal("lode serve did not start")
	}
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

// TestServeFlags: lode serve serves configureFailPoint with
// --enable-test-commands or --set-parameter enableTestCommands=1, and
// answers CommandNotFound without them.
func TestServeFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		on   bool
	}{
		{nil, false},
		{[]string{"--enable-test-commands"}, true},
		{[]string{"--set-parameter", "enableTestCommands=1"}, true},
	} {
		c := serve(t, tc.args...)
		_, err := testenv.RunCmd(t, c.Database("admin"), bson.D{{Key: "configureFailPoint", Value: "failCommand"},
			{Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "errorCode", Value: 2}}}})
		if !tc.on {
			if code(err) != 59 {
				t.Fatalf("%v: %v, want CommandNotFound", tc.args, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if err := c.Database("test").RunCommand(testenv.Ctx(t), bson.D{{Key: "ping", Value: 1}}).Err(); code(err) != 2 {
			t.Fatalf("%v: ping %v, want code 2", tc.args, err)
		}
	}
}
