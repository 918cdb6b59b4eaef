package clients

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// toolsDir returns the directory of MongoDB's database tools:
// $LODE_TOOLS_DIR, else ../shared/tools beside the repository (see its
// README). The tools are optional, so a test that needs them skips when
// they are absent, even under LODE_REQUIRE_CLIENTS=1.
func toolsDir(t *testing.T, tool string) string {
	t.Helper()
	dir := os.Getenv("LODE_TOOLS_DIR")
	if dir == "" {
		// The test runs in test/clients; the repository's parent holds shared/.
		d, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "tools"))
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	if _, err := os.Stat(filepath.Join(dir, tool)); err != nil || testenv.Hidden(tool) {
		testenv.Skip(t, testenv.GroupTools, fmt.Sprintf("MongoDB's database tools not found (%s: %v)", dir, err))
	}
	return dir
}

// runTool runs one of the database tools and returns its combined output.
func runTool(t *testing.T, dir, tool string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, tool), args...).CombinedOutput()
	return string(out), err
}

// readBSONFile reads a file of concatenated BSON documents (a dump).
func readBSONFile(t *testing.T, path string) []bson.Raw {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	for len(data) > 0 {
		if len(data) < 5 {
			t.Fatalf("%s: %d trailing bytes", path, len(data))
		}
		n := int(binary.LittleEndian.Uint32(data))
		if n < 5 || n > len(data) {
			t.Fatalf("%s: bad document length %d", path, n)
		}
		docs = append(docs, bson.Raw(data[:n]))
		data = data[n:]
	}
	return docs
}

// connect returns a driver client for s.
func connect(t *testing.T, s *server) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(s.uri()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// TestMongodumpOplog: mongodump --oplog completes against lode serve while
// writes go on, and its oplog.bson holds the entries of the dump's
// window: none older than the newest entry when it began, in timestamp
// order, in mongod's format.
func TestMongodumpOplog(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongodump")
	s := startServer(t)
	c := connect(t, s)
	ctx := context.Background()
	items := c.Database("app").Collection("items")
	docs := make([]any, 500)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "v", Value: fmt.Sprint(i)}}
	}
	if _, err := items.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var before bson.Raw
	oplogColl := c.Database("local").Collection("oplog.rs")
	if err := oplogColl.FindOne(ctx, bson.D{}, options.FindOne().SetSort(bson.D{{Key: "$natural", Value: -1}})).Decode(&before); err != nil {
		t.Fatal(err)
	}
	startT, startI, _ := before.Lookup("ts").TimestampOK()

	// Writes during the dump land in its window or after it.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		stream := c.Database("app").Collection("stream")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := stream.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	out := t.TempDir()
	log, err := runTool(t, tools, "mongodump", "--uri", s.uri(), "--oplog", "-o", out)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("mongodump --oplog: %v\n%s", err, log)
	}
	if !bytes.Contains([]byte(log), []byte("oplog")) {
		t.Fatalf("mongodump did not report the oplog:\n%s", log)
	}
	if got := readBSONFile(t, filepath.Join(out, "app", "items.bson")); len(got) != 500 {
		t.Fatalf("items.bson holds %d documents, want 500", len(got))
	}
	ents := readBSONFile(t, filepath.Join(out, "oplog.bson"))
	if len(ents) == 0 {
		t.Fatalf("oplog.bson is empty; mongodump:\n%s", log)
	}
	var prevT, prevI uint32
	for i, e := range ents {
		et, ei, ok := e.Lookup("ts").TimestampOK()
		if !ok || e.Lookup("op").Type != bson.TypeString || e.Lookup("ns").Type != bson.TypeString {
			t.Fatalf("oplog.bson entry %d = %v", i, e)
		}
		if et < startT || et == startT && ei < startI {
			t.Fatalf("entry %d at Timestamp(%d, %d) precedes the dump's start Timestamp(%d, %d)", i, et, ei, startT, startI)
		}
		if i > 0 && (et < prevT || et == prevT && ei <= prevI) {
			t.Fatalf("oplog.bson out of order at %d", i)
		}
		prevT, prevI = et, ei
	}
	t.Logf("oplog.bson holds %d entries", len(ents))
}

// writeBSONFile writes docs as a file of concatenated BSON documents.
func writeBSONFile(t *testing.T, path string, docs []bson.Raw) {
	t.Helper()
	var buf bytes.Buffer
	for _, d := range docs {
		buf.Write(d)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// collectionDump renders a collection's documents in _id order.
func collectionDump(t *testing.T, c *mongo.Collection) string {
	t.Helper()
	ctx := context.Background()
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, d := range docs {
		b.WriteString(d.String() + "\n")
	}
	return b.String()
}

// TestMongorestoreOplogReplay: mongorestore --oplogReplay applies an
// oplog.bson taken from one lode serve's local.oplog.rs (creates,
// inserts, $v: 2 updates, a replacement, a delete, a transaction) to
// another, through applyOps, and the collection comes out the same; so
// does a whole mongodump --oplog / mongorestore --oplogReplay round trip.
func TestMongorestoreOplogReplay(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongorestore")
	src, dst := startServer(t), startServer(t)
	sc, dc := connect(t, src), connect(t, dst)
	ctx := context.Background()
	coll := sc.Database("app").Collection("replayed")
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "arr", Value: bson.A{1, 2}}},
		bson.D{{Key: "_id", Value: 2}},
		bson.D{{Key: "_id", Value: 3}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{
		{Key: "$set", Value: bson.D{{Key: "n.y", Value: 2}}}, {Key: "$push", Value: bson.D{{Key: "arr", Value: 3}}}, {Key: "$inc", Value: bson.D{{Key: "c", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "r", Value: "eplaced"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	sess, err := sc.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.WithTransaction(ctx, func(tc context.Context) (any, error) {
		if _, err := coll.InsertOne(tc, bson.D{{Key: "_id", Value: 4}}); err != nil {
			return nil, err
		}
		return coll.UpdateOne(tc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "n.x", Value: ""}}}})
	}); err != nil {
		t.Fatal(err)
	}
	sess.EndSession(ctx)
	want := collectionDump(t, coll)

	cur, err := sc.Database("local").Collection("oplog.rs").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var ents []bson.Raw
	if err := cur.All(ctx, &ents); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeBSONFile(t, filepath.Join(dir, "oplog.bson"), ents)
	log, err := runTool(t, tools, "mongorestore", "--uri", dst.uri(), "--oplogReplay", dir)
	if err != nil {
		t.Fatalf("mongorestore --oplogReplay: %v\n%s", err, log)
	}
	if got := collectionDump(t, dc.Database("app").Collection("replayed")); got != want {
		t.Fatalf("after mongorestore --oplogReplay:\n%s\nwant:\n%s\nmongorestore:\n%s", got, want, log)
	}

	t.Run("dump and restore", func(t *testing.T) {
		third := startServer(t)
		out := t.TempDir()
		if log, err := runTool(t, tools, "mongodump", "--uri", src.uri(), "--oplog", "-o", out); err != nil {
			t.Fatalf("mongodump --oplog: %v\n%s", err, log)
		}
		log, err := runTool(t, tools, "mongorestore", "--uri", third.uri(), "--oplogReplay", out)
		if err != nil {
			t.Fatalf("mongorestore --oplogReplay: %v\n%s", err, log)
		}
		if got := collectionDump(t, connect(t, third).Database("app").Collection("replayed")); got != want {
			t.Fatalf("after the round trip:\n%s\nwant:\n%s", got, want)
		}
	})
}
