package security

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestLocalhostExceptionConcurrentCreateUser: on a fresh `lode serve
// --auth`, 20 unauthenticated loopback clients send createUser at once.
// The localhost exception ends with the first user, so exactly one
// succeeds; every other gets Unauthorized (13), as any unauthenticated
// createUser does once a user exists, and admin.system.users holds one
// user.
func TestLocalhostExceptionConcurrentCreateUser(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--auth")
	const n = 20
	clients := make([]*mongo.Client, n)
	for i := range clients {
		clients[i] = connect(t, s, url.Values{"maxPoolSize": {"1"}})
		// Open the connection before the race starts.
		if err := clients[i].Database("admin").RunCommand(context.Background(), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	start := make(chan struct{})
	errsOut := make([]error, n)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			errsOut[i] = clients[i].Database("admin").RunCommand(context.Background(), bson.D{
				{Key: "createUser", Value: fmt.Sprintf("u%02d", i)}, {Key: "pwd", Value: "pw"},
				{Key: "roles", Value: bson.A{"root"}}}).Err()
		}(i)
	}
	close(start)
	wg.Wait()
	ok, winner := 0, -1
	for i, err := range errsOut {
		switch codeOf(err) {
		case 0:
			ok++
			winner = i
		case 13:
		default:
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d createUser commands succeeded, want 1", ok)
	}
	admin := goClient(t, s.authURI(fmt.Sprintf("u%02d", winner), "pw", "admin", "admin", nil))
	var res struct {
		Users []bson.Raw `bson:"users"`
	}
	if err := admin.Database("admin").RunCommand(context.Background(), bson.D{{Key: "usersInfo", Value: 1}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if len(res.Users) != 1 {
		t.Fatalf("%d users exist, want 1", len(res.Users))
	}
}
