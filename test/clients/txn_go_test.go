package clients

import (
	"context"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// connectGo connects the Go driver v2 to uri and disconnects it with the
// test.
func connectGo(t *testing.T, uri string, opts ...*options.ClientOptions) *mongo.Client {
	t.Helper()
	co := options.Client().ApplyURI(uri).SetServerSelectionTimeout(20 * time.Second)
	for _, o := range opts {
		if o.Monitor != nil {
			co.SetMonitor(o.Monitor)
		}
	}
	client, err := mongo.Connect(co)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}

// TestTxnGoDriver runs a transaction and a retryable write through the Go
// driver v2 against `lode serve`, with no URI options, with
// ?replicaSet=lode and with ?directConnection=true. The command monitor
// checks that the driver really sent a transaction (startTransaction,
// autocommit:false, commitTransaction) and a retryable write (txnNumber
// without autocommit).
func TestTxnGoDriver(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, v := range uriVariants {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			started := map[string][]bson.Raw{}
			mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
				started[e.CommandName] = append(started[e.CommandName], append(bson.Raw(nil), e.Command...))
			}}
			client := connectGo(t, s.uri()+v.query, options.Client().SetMonitor(mon))
			coll := client.Database("gotxn").Collection(v.name)

			sess, err := client.StartSession()
			if err != nil {
				t.Fatal(err)
			}
			defer sess.EndSession(ctx)
			_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
				if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 10}}); err != nil {
					return nil, err
				}
				return coll.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: 20}})
			})
			if err != nil {
				t.Fatalf("WithTransaction: %v", err)
			}
			if len(started["commitTransaction"]) == 0 {
				t.Fatal("the driver sent no commitTransaction: it did not run a transaction")
			}
			first := started["insert"][0]
			if st, ok := first.Lookup("startTransaction").BooleanOK(); !ok || !st {
				t.Fatalf("first insert of the transaction has no startTransaction: %v", first)
			}

			// A retryable write outside the transaction.
			started["insert"] = nil
			if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}}); err != nil {
				t.Fatal(err)
			}
			ins := started["insert"][0]
			if _, err := ins.LookupErr("txnNumber"); err != nil {
				t.Fatalf("the driver did not send a retryable write (no txnNumber): %v", ins)
			}
			if _, err := ins.LookupErr("autocommit"); err == nil {
				t.Fatalf("retryable write carries autocommit: %v", ins)
			}
			var got struct {
				V int32 `bson:"v"`
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got.V != 11 {
				t.Fatalf("after the transaction and the update: v=%d, %v; want 11", got.V, err)
			}
			if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
				t.Fatalf("documents: %d, %v; want 3", n, err)
			}
		})
	}
}

// TestWildcardListenAdvertisesReachableAddr starts `lode serve --addr
// 0.0.0.0:PORT` without --advertise-addr: hello must report the address
// the client connected to, not the wildcard ("[::]:PORT" or "0.0.0.0"),
// so that replica-set discovery works.
func TestWildcardListenAdvertisesReachableAddr(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--addr", "0.0.0.0:0", "--insecure-no-auth")
	_, port, err := net.SplitHostPort(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	want := net.JoinHostPort("127.0.0.1", port)
	client := connectGo(t, "mongodb://"+want+"/?directConnection=true")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var hello bson.Raw
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	hosts, err := hello.Lookup("hosts").Array().Values()
	if err != nil || len(hosts) != 1 || hosts[0].StringValue() != want {
		t.Fatalf("hello hosts = %v, want [%s]", hello.Lookup("hosts"), want)
	}
	if me := hello.Lookup("me").StringValue(); me != want {
		t.Fatalf("hello me = %q, want %q", me, want)
	}
	if p := hello.Lookup("primary").StringValue(); p != want {
		t.Fatalf("hello primary = %q, want %q", p, want)
	}
	// Discovery through the reported host works: a transaction with
	// ?replicaSet=lode.
	rs := connectGo(t, "mongodb://"+want+"/?replicaSet=lode")
	sess, err := rs.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		return rs.Database("wild").Collection("c").InsertOne(sc, bson.D{{Key: "a", Value: 1}})
	})
	if err != nil {
		t.Fatalf("transaction through discovery: %v", err)
	}
}
