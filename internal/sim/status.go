package sim

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// sampler polls the target's serverStatus once a second.
type sampler struct {
	mu      sync.Mutex
	samples []ServerSample
	stop    chan struct{}
	done    chan struct{}
}

// startSampler samples serverStatus at start (second 0) and then once a
// second until finish.
func startSampler(client *mongo.Client, start time.Time) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		select { // the first sample is taken at the run's start, not before
		case <-s.stop:
			s.sample(client, start)
			return
		case <-time.After(time.Until(start)):
		}
		t := time.NewTicker(time.Second)
		defer t.Stop()
		s.sample(client, start)
		for {
			select {
			case <-s.stop:
				s.sample(client, start)
				return
			case <-t.C:
				s.sample(client, start)
			}
		}
	}()
	return s
}

func (s *sampler) sample(client *mongo.Client, start time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	at := time.Now()
	raw, err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		return
	}
	// A sample is dated when its command was sent, clamped so that one
	// taken at the start never reads as negative.
	smp := ServerSample{Second: max(0, round3(at.Sub(start).Seconds())), Opcounters: map[string]int64{}}
	if v, err := raw.LookupErr("opcounters"); err == nil {
		if doc, ok := v.DocumentOK(); ok {
			elems, _ := doc.Elements()
			for _, e := range elems {
				if n, ok := asInt(e.Value()); ok {
					smp.Opcounters[e.Key()] = n
				}
			}
		}
	}
	if v, err := raw.LookupErr("connections", "current"); err == nil {
		smp.Connections, _ = asInt(v)
	}
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
}

func asInt(v bson.RawValue) (int64, bool) {
	if n, ok := v.Int32OK(); ok {
		return int64(n), true
	}
	if n, ok := v.Int64OK(); ok {
		return n, true
	}
	if f, ok := v.DoubleOK(); ok {
		return int64(f), true
	}
	return 0, false
}

func (s *sampler) finish() []ServerSample {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples
}
