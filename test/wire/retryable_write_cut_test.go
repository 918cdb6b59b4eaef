package wire_test

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// cutProxy forwards wire-protocol messages between clients and a server.
// The first reply to a command named cutCmd is swallowed and the client's
// connection is closed: the server applied the command but the client
// never hears back.
type cutProxy struct {
	ln       net.Listener
	upstream string
	cutCmd   string
	cut      atomic.Bool
	seen     atomic.Int64 // commands named cutCmd forwarded
}

func newCutProxy(t *testing.T, upstream, cmd string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, upstream: upstream, cutCmd: cmd}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func readMsg(r io.Reader) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(h[:]))
	msg := make([]byte, n)
	copy(msg, h[:])
	_, err := io.ReadFull(r, msg[4:])
	return msg, err
}

// commandName returns the command of an OP_MSG whose first section is the
// body (kind 0).
func commandName(msg []byte) string {
	if len(msg) < 26 || binary.LittleEndian.Uint32(msg[12:]) != 2013 || msg[20] != 0 {
		return ""
	}
	doc := bsoncore.Document(msg[21:])
	el, err := doc.IndexErr(0)
	if err != nil {
		return ""
	}
	return el.Key()
}

func (p *cutProxy) handle(client net.Conn) {
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		client.Close()
		return
	}
	var mu sync.Mutex
	cutIDs := map[uint32]bool{}
	go func() {
		defer server.Close()
		for {
			msg, err := readMsg(client)
			if err != nil {
				return
			}
			if commandName(msg) == p.cutCmd {
				p.seen.Add(1)
				if !p.cut.Load() {
					mu.Lock()
					cutIDs[binary.LittleEndian.Uint32(msg[4:])] = true
					mu.Unlock()
				}
			}
			if _, err := server.Write(msg); err != nil {
				return
			}
		}
	}()
	defer client.Close()
	for {
		msg, err := readMsg(server)
		if err != nil {
			return
		}
		mu.Lock()
		drop := cutIDs[binary.LittleEndian.Uint32(msg[8:])]
		mu.Unlock()
		if drop && p.cut.CompareAndSwap(false, true) {
			return // the server applied the write; the client never hears
		}
		if _, err := client.Write(msg); err != nil {
			return
		}
	}
}

// TestRetryableWriteAfterCut cuts the connection after the server applies
// each kind of write and before its reply arrives. The driver retries on a
// new connection with the same lsid and txnNumber; the write must be
// applied exactly once and the retry must return the first result.
func TestRetryableWriteAfterCut(t *testing.T) {
	t.Parallel()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	addr := testenv.HostPort(db)
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}
	cases := []struct {
		cmd   string
		write func(ctx context.Context, c *mongo.Collection) error
		check func(t *testing.T, c *mongo.Collection)
	}{
		{"insert", func(ctx context.Context, c *mongo.Collection) error {
			_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 0}})
			return err
		}, func(t *testing.T, c *mongo.Collection) {
			if n, _ := c.CountDocuments(context.Background(), bson.D{}); n != 1 {
				t.Fatalf("%d documents, want 1", n)
			}
		}},
		{"update", func(ctx context.Context, c *mongo.Collection) error {
			res, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, inc)
			if err == nil && res.ModifiedCount != 1 {
				t.Errorf("retried update reported %d modified, want the first result 1", res.ModifiedCount)
			}
			return err
		}, nil},
		{"findAndModify", func(ctx context.Context, c *mongo.Collection) error {
			var doc struct {
				N int `bson:"n"`
			}
			err := c.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 1}}, inc).Decode(&doc)
			if err == nil && doc.N != 1 {
				t.Errorf("retried findAndModify returned n=%d, want the pre-image of the first attempt (1)", doc.N)
			}
			return err
		}, func(t *testing.T, c *mongo.Collection) {
			var doc struct {
				N int `bson:"n"`
			}
			if err := c.FindOne(context.Background(), bson.D{{Key: "_id", Value: 1}}).Decode(&doc); err != nil || doc.N != 2 {
				t.Fatalf("n=%d (%v), want 2: each $inc applied once", doc.N, err)
			}
		}},
		{"delete", func(ctx context.Context, c *mongo.Collection) error {
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
				return err
			}
			res, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 2}}}})
			if err == nil && res.DeletedCount != 1 {
				t.Errorf("retried delete reported %d, want the first result 1", res.DeletedCount)
			}
			return err
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			p := newCutProxy(t, addr, tc.cmd)
			client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + p.ln.Addr().String() + "/?directConnection=true"))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Disconnect(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			coll := client.Database("retry").Collection("c")
			if err := tc.write(ctx, coll); err != nil {
				t.Fatalf("write: %v", err)
			}
			if !p.cut.Load() || p.seen.Load() < 2 {
				t.Fatalf("cut=%v, %s sent %d times: the retry path was not exercised", p.cut.Load(), tc.cmd, p.seen.Load())
			}
			if tc.check != nil {
				tc.check(t, db.Client().Database("retry").Collection("c"))
			}
		})
	}
}
