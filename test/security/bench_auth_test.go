package security

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// BenchmarkAuthOverhead measures what authorization costs a request:
// ping (open to everyone, so only the rule lookup) and a find by _id
// (checked against the user's resolved privileges), from 8 goroutines per
// core through one Go driver client, against a `lode serve` without
// --auth and one with --auth and an authenticated readWrite user.
func BenchmarkAuthOverhead(b *testing.B) {
	open := startServer(b)
	secured := startServer(b, "--auth")
	ctx := context.Background()
	// The localhost exception creates the first user in admin; it then
	// creates the benchmark's readWrite user.
	if err := connect(b, secured, nil).Database("admin").RunCommand(ctx, bson.D{
		{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "root-pwd"}, {Key: "roles", Value: bson.A{"root"}},
	}).Err(); err != nil {
		b.Fatal(err)
	}
	if err := connectAs(b, secured, "root", "root-pwd").Database("admin").RunCommand(ctx, bson.D{
		{Key: "createUser", Value: "bench"}, {Key: "pwd", Value: "bench-pwd"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "bench"}}}},
	}).Err(); err != nil {
		b.Fatal(err)
	}
	clients := map[string]*mongo.Client{
		"off": connect(b, open, nil),
		"on":  connectAs(b, secured, "bench", "bench-pwd"),
	}
	for _, mode := range []string{"off", "on"} {
		coll := clients[mode].Database("bench").Collection("c")
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "x"}}); err != nil && !mongo.IsDuplicateKeyError(err) {
			b.Fatal(err)
		}
	}
	ops := []struct {
		name string
		run  func(c *mongo.Client) error
	}{
		{"ping", func(c *mongo.Client) error {
			return c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
		}},
		{"findOne", func(c *mongo.Client) error {
			return c.Database("bench").Collection("c").FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err()
		}},
	}
	for _, op := range ops {
		for _, mode := range []string{"off", "on"} {
			c := clients[mode]
			b.Run(op.name+"/auth="+mode, func(b *testing.B) {
				b.SetParallelism(8)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := op.run(c); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// connectAs opens a Go driver client authenticated as user (SCRAM-SHA-256,
// source admin).
func connectAs(t testing.TB, s *server, user, pwd string) *mongo.Client {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri(nil)).
		SetServerSelectionTimeout(2e9).
		SetAuth(options.Credential{Username: user, Password: pwd, AuthSource: "admin"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}
