package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestKill9KeepsWhatChangeStreamsReported: a change stream reports only
// changes that are durable, as mongod's do (they read majority-committed
// data, which on one node is journaled data). Writers insert with w:1,
// j:false (acknowledged before any fsync), a change stream records every
// insert it reports, and the server is killed with SIGKILL at a random
// moment; after the restart every reported document must be there. A
// stream that reported w:1 writes as soon as they committed would
// report some of the last ones that the kill then lost.
func TestKill9KeepsWhatChangeStreamsReported(t *testing.T) {
	acceptanceOnly(t)
	bin := buildLode(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	seen := map[string]bool{}
	for round := range 5 {
		cmd, addr := startServer(t, bin, dataDir)
		c := connect(t, "mongodb://"+addr+"/?directConnection=true")
		coll := c.Database("cs").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 1}))
		ctx, cancel := context.WithCancel(context.Background())
		cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetMaxAwaitTime(50*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		reported := 0
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the stream's reader
			defer wg.Done()
			for cs.Next(ctx) {
				id, ok := cs.Current.Lookup("documentKey", "_id").StringValueOK()
				if ok {
					mu.Lock()
					seen[id] = true
					reported++
					mu.Unlock()
				}
			}
		}()
		for w := range 2 {
			wg.Add(1)
			go func() { // w:1 writers until the kill
				defer wg.Done()
				for i := 0; ctx.Err() == nil; i++ {
					if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("r%d-w%d-%d", round, w, i)}}); err != nil {
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		cancel()
		wg.Wait()
		cs.Close(context.Background())
		disconnect(c)
		mu.Lock()
		if reported == 0 {
			t.Fatalf("round %d: the change stream reported nothing before the kill", round)
		}
		mu.Unlock()

		cmd, addr = startServer(t, bin, dataDir)
		c = connect(t, "mongodb://"+addr+"/?directConnection=true")
		coll = c.Database("cs").Collection("c")
		missing := 0
		for id := range seen {
			if err := coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: id}}).Err(); err == mongo.ErrNoDocuments {
				missing++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		stopServer(cmd, syscall.SIGTERM)
		disconnect(c)
		if missing > 0 {
			t.Fatalf("round %d: %d of the %d documents the change stream reported are gone after the kill", round, missing, len(seen))
		}
	}
}
