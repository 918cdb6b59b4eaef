package sim

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Op is one measured operation. It is called concurrently from many
// goroutines and must be safe for that.
type Op func(ctx context.Context) error

// Progress reports preload progress (done out of total).
type Progress func(done, total int)

// Delivery is one message received by a subscriber scenario.
type Delivery struct {
	// Key identifies the message (its _id), to count duplicates.
	Key any
	// At is when the subscriber received it.
	At time.Time
	// Sent is the publisher's stamp in the message, taken just before
	// its insert; zero if the message has none.
	Sent time.Time
	// Acked is when the publisher's insert was acknowledged, or zero if
	// the message arrived first (or the ack is unknown).
	Acked time.Time
	// Committed is the server's wall clock when it logged the write (a
	// change event's wallTime, millisecond precision), or zero.
	Committed time.Time
}

// SubscribeLoop receives a subscriber's messages, calling deliver for
// each (from one goroutine), until ctx ends; it then returns nil. Any
// other return ends that subscriber and counts as an error.
type SubscribeLoop func(ctx context.Context, deliver func(Delivery)) error

// Scenario is a named workload: a setup that drops, preloads and indexes,
// the operation it measures, and a teardown. A subscriber scenario has
// Subscribe instead of Bind: its users are subscribers that follow the
// collection for the whole run while the other scenarios load it, and it
// measures delivery.
type Scenario struct {
	// Name is how the scenario is referred to (e.g. "metadata").
	Name string
	// Seed names the seed document the scenario comes from.
	Seed string
	// Description says what the scenario does and what Op measures.
	Description string
	// Users is the default number of operations per iteration when the
	// scenario runs alone (0: the seeds' 1000).
	Users int
	// Defaults are the scenario's parameters; "db" and "collection" are
	// always present.
	Defaults Params
	// Setup prepares the collection: drop (unless drop=false), preload
	// and create indexes. It runs once, on the first process's client.
	Setup func(ctx context.Context, db *mongo.Database, p Params, progress Progress) error
	// Bind returns the measured operation for one process's client.
	Bind func(ctx context.Context, db *mongo.Database, p Params) (Op, error)
	// Subscribe, in a subscriber scenario, opens one subscriber on db and
	// returns its loop. The subscription must be open when it returns
	// (the load starts after every subscriber's has).
	Subscribe func(ctx context.Context, db *mongo.Database, p Params) (SubscribeLoop, error)
	// Published, in a subscriber scenario, returns how many messages every
	// subscriber should receive: those whose publish was acknowledged
	// since the setup. After the load the run waits for them, up to the
	// scenario's "drain" parameter (milliseconds, default 5000), and
	// counts the ones missing as errors.
	Published func(db *mongo.Database, p Params) int64
	// Teardown cleans up after the run (drops the collection unless
	// keep=true). It may be nil.
	Teardown func(ctx context.Context, db *mongo.Database, p Params) error
}

var (
	regMu    sync.RWMutex
	registry = map[string]*Scenario{}
)

// Register adds a scenario to the built-in registry; it panics on a
// duplicate name or a missing Bind.
func Register(s *Scenario) {
	regMu.Lock()
	defer regMu.Unlock()
	if (s.Bind == nil) == (s.Subscribe == nil) {
		panic("sim: scenario " + s.Name + " needs one of Bind and Subscribe")
	}
	if _, dup := registry[s.Name]; dup {
		panic("sim: duplicate scenario " + s.Name)
	}
	d := Params{"db": "sim", "collection": s.Name}
	s.Defaults = d.Merge(s.Defaults)
	registry[s.Name] = s
}

// Lookup returns the registered scenario called name.
func Lookup(name string) (*Scenario, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	s, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("sim: unknown scenario %q (see `lode sim list`)", name)
	}
	return s, nil
}

// Scenarios returns the registered scenarios sorted by name.
func Scenarios() []*Scenario {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]*Scenario, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Scenario) int {
		if a.Seed != b.Seed {
			if a.Seed < b.Seed {
				return -1
			}
			return 1
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}
