// Package crash holds Lode's kill -9 test: it runs `lode serve` as a child
// process, streams j:true writes from several clients, SIGKILLs the child
// at a random moment and checks after each restart that every
// acknowledged write survived and that validate finds records and indexes
// consistent.
package crash

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode/test/testenv"
)

const (
	rounds  = 20
	clients = 4
)

// acceptanceOnly skips t unless LODE_ACCEPTANCE is set (.ci/run sets
// it): 20 kill -9 rounds take one to three minutes, too long for the
// everyday test run.
func acceptanceOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("LODE_ACCEPTANCE") == "" {
		testenv.Skip(t, testenv.GroupAcceptance, "acceptance test: set LODE_ACCEPTANCE=1 to run it")
	}
}

// buildLode returns the built cmd/lode (shared by the test packages that
// run it, see testenv.LodeBinary).
func buildLode(t *testing.T) string {
	t.Helper()
	bin, err := testenv.LodeBinary()
	if err != nil {
		t.Fatalf("build lode: %v", err)
	}
	return bin
}

var addrRE = regexp.MustCompile(`lode started"? addr=(127\.0\.0\.1:\d+)`)

// startServer starts `lode serve` on dataDir (with the extra flags) and
// returns the process and its address.
func startServer(t *testing.T, bin, dataDir string, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--dir", dataDir, "--log-level", "info"}, extra...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addrc <- m[1]
				sent = true
			}
		}
	}()
	select {
	case a := <-addrc:
		return cmd, a
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("server did not start")
	}
	return nil, ""
}

// acked is the set of acknowledged writes: for each _id the last
// acknowledged value of v (updates only ever raise v).
type acked struct {
	mu sync.Mutex
	v  map[string]int64
}

func (a *acked) set(id string, v int64) {
	a.mu.Lock()
	if cur, ok := a.v[id]; !ok || v > cur {
		a.v[id] = v
	}
	a.mu.Unlock()
}

func TestKill9KeepsAcknowledgedJournaledWrites(t *testing.T) {
	acceptanceOnly(t)
	tmp := t.TempDir()
	bin := buildLode(t)
	dataDir := filepath.Join(tmp, "data")
	ack := &acked{v: map[string]int64{}}
	start := time.Now()
	var directWrites int64 // the lone writers' direct log writes, all rounds
	for round := 0; round < rounds; round++ {
		cmd, addr := startServer(t, bin, dataDir)
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true").
			SetTimeout(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		coll := client.Database("crash").Collection("docs",
			options.Collection().SetWriteConcern(writeconcern.Journaled()))
		verify(t, round, client, coll, ack)
		if round == 0 {
			if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
				t.Fatal(err)
			}
		}
		// Stream writes until the kill. Every other round has one
		// writer: a lone j:true writer's log writes go past the page
		// cache at its sync (internal/storage/waldirect.go), and a kill
		// must find them as it finds the others.
		n := clients
		if round%2 == 1 {
			n = 1
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := 0; w < n; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				writer(round, w, coll, ack, stop)
			}()
		}
		time.Sleep(time.Duration(50+rand.IntN(400)) * time.Millisecond)
		if n == 1 {
			var st bson.Raw
			if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err == nil {
				if v, err := st.LookupErr("metrics", "lode", "walDirectWrites"); err == nil {
					directWrites += v.AsInt64()
				}
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		close(stop)
		wg.Wait()
		disconnect(client)
	}
	// A last start to verify the final round.
	cmd, addr := startServer(t, bin, dataDir)
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	verify(t, rounds, client, client.Database("crash").Collection("docs"), ack)
	ack.mu.Lock()
	n := len(ack.v)
	ack.mu.Unlock()
	t.Logf("%d rounds, %d acknowledged documents, %d direct log writes in the lone writers' rounds, %v", rounds, n, directWrites, time.Since(start))
	if n < rounds*clients {
		t.Fatalf("too few acknowledged writes (%d): the test did not exercise the server", n)
	}
	if directWrites == 0 && directLogs(t, tmp) {
		t.Fatal("no lone writer's log write went directly: the test did not exercise that path")
	}
}

// writer inserts documents and updates its earlier ones with j:true until
// stop is closed or the server dies.
func writer(round, w int, coll *mongo.Collection, ack *acked, stop chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-stop; cancel() }()
	var mine []string
	for i := 0; ; i++ {
		id := fmt.Sprintf("r%02d-w%d-%05d", round, w, i)
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: i}, {Key: "v", Value: int64(0)}}); err != nil {
			return
		}
		ack.set(id, 0)
		mine = append(mine, id)
		if i%2 == 1 {
			target := mine[rand.IntN(len(mine))]
			v := int64(i)
			if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: target}}, bson.D{{Key: "$max", Value: bson.D{{Key: "v", Value: v}}}, {Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
				return
			}
			ack.set(target, v)
		}
	}
}

// verify checks every acknowledged write and runs validate.
func verify(t *testing.T, round int, client *mongo.Client, coll *mongo.Collection, ack *acked) {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
		V  int64  `bson:"v"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	got := make(map[string]int64, len(docs))
	for _, d := range docs {
		got[d.ID] = d.V
	}
	ack.mu.Lock()
	nAcked := len(ack.v)
	for id, v := range ack.v {
		g, ok := got[id]
		if !ok {
			t.Errorf("round %d: acknowledged insert %s is missing", round, id)
		} else if g < v {
			t.Errorf("round %d: %s has v=%d, acknowledged update set %d", round, id, g, v)
		}
	}
	ack.mu.Unlock()
	if t.Failed() {
		t.FailNow()
	}
	var res bson.Raw
	if err := client.Database("crash").RunCommand(ctx, bson.D{{Key: "validate", Value: "docs"}}).Decode(&res); err != nil {
		var se mongo.ServerError
		if nAcked == 0 && errors.As(err, &se) && se.HasErrorCode(26) {
			return // nothing acknowledged: the collection need not exist yet
		}
		t.Fatalf("round %d: validate failed: %v", round, err)
	}
	if !res.Lookup("valid").Boolean() {
		t.Fatalf("round %d: validate reports invalid: %v", round, res)
	}
}
