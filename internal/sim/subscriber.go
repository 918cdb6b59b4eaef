package sim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// SubscriberStats are a subscriber scenario's delivery figures. Its
// ScenarioResult counts each delivery as an operation: Stats are the
// latencies from the publisher's stamp, taken just before the insert, to
// the message's arrival at the subscriber (an upper bound on the latency
// from the commit), and ServiceStats those from the publisher's
// acknowledgement to the arrival, zero for a message that arrived before
// its publisher heard back.
type SubscriberStats struct {
	// Subscribers is the number of subscribers, each with its own client.
	Subscribers int `json:"subscribers"`
	// Published counts the acknowledged publishes since the setup; each
	// is due to every subscriber, so Expected is Published x Subscribers.
	Published int64 `json:"published"`
	Expected  int64 `json:"expected"`
	// Delivered counts distinct messages received, over all subscribers;
	// Missed those due but never received, Duplicates repeated ones.
	Delivered  int64 `json:"delivered"`
	Missed     int64 `json:"missed"`
	Duplicates int64 `json:"duplicates"`
	// BeforeAck counts messages that arrived before their publisher's
	// insert returned.
	BeforeAck int64 `json:"beforeAck"`
	// DrainMs is how long after the load's last operation the run waited
	// for the last message due (at most the "drain" parameter).
	DrainMs float64 `json:"drainMs"`
	// FromCommit are the latencies from the server's wall clock when it
	// logged the write (the change event's wallTime) to the arrival. The
	// wall time has millisecond precision and is truncated, so they
	// overstate by up to 1 ms; and they mean something only when the
	// subscriber and the server share a clock (the embedded target, or
	// the same machine). Count is 0 when events carry no wallTime.
	FromCommit Stats `json:"fromCommit"`
}

// subscribers runs one subscriber scenario's subscribers, each on its own
// client (a subscriber is usually its own process, and its stream holds a
// connection in an awaitData getMore).
type subscribers struct {
	b       *boundScenario
	clients []*mongo.Client
	loops   []SubscribeLoop
	got     []atomic.Int64 // distinct messages per subscriber
	dups    atomic.Int64
	before  atomic.Int64
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu         sync.Mutex
	fromCommit *hdrhistogram.Histogram
}

// openSubscribers connects b's subscribers to uri and opens their
// subscriptions.
func openSubscribers(ctx context.Context, uri string, b *boundScenario) (*subscribers, error) {
	s := &subscribers{b: b, got: make([]atomic.Int64, b.spec.Users),
		fromCommit: hdrhistogram.New(histMin, histMax, histSigFigs)}
	for k := range b.spec.Users {
		c, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(2).
			SetAppName(fmt.Sprintf("lode-sim-subscriber-%d", k)))
		if err != nil {
			s.close()
			return nil, fmt.Errorf("sim: connect subscriber %d: %w", k, err)
		}
		s.clients = append(s.clients, c)
		loop, err := b.sc.Subscribe(ctx, c.Database(b.params.String("db", "sim")), b.params)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("sim: subscribe %s: %w", b.sc.Name, err)
		}
		s.loops = append(s.loops, loop)
	}
	return s, nil
}

// start runs every subscriber's loop, recording into b.rec.
func (s *subscribers) start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	for k, loop := range s.loops {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			seen := map[any]struct{}{}
			err := loop(ctx, func(d Delivery) {
				if _, dup := seen[d.Key]; dup && d.Key != nil {
					s.dups.Add(1)
					return
				}
				seen[d.Key] = struct{}{}
				s.got[k].Add(1)
				s.record(d)
			})
			if err != nil && ctx.Err() == nil {
				s.b.rec.fail(time.Now(), fmt.Errorf("subscriber %d: %w", k, err))
			}
		}()
	}
}

// record counts one delivery as an operation of the scenario.
func (s *subscribers) record(d Delivery) {
	var lat, fromAck time.Duration
	switch {
	case !d.Sent.IsZero():
		lat = d.At.Sub(d.Sent)
	case !d.Acked.IsZero():
		lat = d.At.Sub(d.Acked)
	}
	if d.Acked.IsZero() || d.Acked.After(d.At) {
		s.before.Add(1)
	} else {
		fromAck = d.At.Sub(d.Acked)
	}
	if !d.Committed.IsZero() {
		s.mu.Lock()
		_ = s.fromCommit.RecordValue(clampUs(d.At.Sub(d.Committed)))
		s.mu.Unlock()
	}
	s.b.rec.begin(d.At, 0)
	s.b.rec.end(d.At, lat, fromAck, nil)
}

// finish waits, up to the scenario's drain parameter, until every
// subscriber has every message published, then stops them and returns
// the delivery figures. loadEnd is when the load's last operation ended.
func (s *subscribers) finish(ctx context.Context, ctl *mongo.Client, loadEnd time.Time) *SubscriberStats {
	b := s.b
	db := ctl.Database(b.params.String("db", "sim"))
	published := func() int64 {
		if b.sc.Published == nil {
			return 0
		}
		return b.sc.Published(db, b.params)
	}
	caughtUp := func(want int64) bool {
		for k := range s.got {
			if s.got[k].Load() < want {
				return false
			}
		}
		return true
	}
	deadline := loadEnd.Add(time.Duration(b.params.Int("drain", 5000)) * time.Millisecond)
	for !caughtUp(published()) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	drained := time.Since(loadEnd)
	s.cancel()
	s.wg.Wait()
	s.close()
	st := &SubscriberStats{Subscribers: len(s.loops), Published: published(),
		Duplicates: s.dups.Load(), BeforeAck: s.before.Load(), DrainMs: round3(float64(drained.Microseconds()) / 1000)}
	st.Expected = st.Published * int64(st.Subscribers)
	st.FromCommit = statsOf(s.fromCommit, 0)
	for k := range s.got {
		n := s.got[k].Load()
		st.Delivered += n
		st.Missed += max(0, st.Published-n)
	}
	if st.Missed > 0 {
		b.rec.failN(time.Now(), st.Missed, fmt.Errorf("messages published but not delivered within the drain time"))
	}
	return st
}

// close disconnects the subscribers' clients.
func (s *subscribers) close() {
	for _, c := range s.clients {
		_ = c.Disconnect(context.Background())
	}
	s.clients = nil
}
