package cursor

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// slowSource yields n documents, each after a delay.
type slowSource struct {
	n     int
	delay time.Duration
}

func (s *slowSource) Next() (bsoncore.Document, error) {
	if s.n == 0 {
		return nil, nil
	}
	s.n--
	time.Sleep(s.delay)
	return bsoncore.NewDocumentBuilder().AppendInt32("i", int32(s.n)).Build(), nil
}

func (s *slowSource) Close() error { return nil }

// TestTimeLimitSpansBatches checks that a command's maxTimeMS bounds the
// processing time of the whole cursor: batches that each fit in the limit
// fail once their sum exceeds it, and idle time between batches is not
// counted.
func TestTimeLimitSpansBatches(t *testing.T) {
	c := &Cursor{NS: "db.c", src: &slowSource{n: 100, delay: 10 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	c.StartTimeLimit(ctx)
	cancel()
	if c.TimeLeft <= 0 || c.TimeLeft > 250*time.Millisecond {
		t.Fatalf("TimeLeft = %v", c.TimeLeft)
	}
	var err error
	batches := 0
	for batches < 20 && err == nil {
		// Each batch takes about 50ms of processing, well under the limit,
		// and then the cursor idles longer than the whole limit.
		_, _, err = c.NextBatch(context.Background(), 5, 1<<20)
		if err == nil {
			batches++
			time.Sleep(60 * time.Millisecond)
		}
	}
	wantCode(t, err, errs.MaxTimeMSExpired)
	if batches < 1 || batches > 5 {
		t.Fatalf("failed after %d full batches, want about 4 (250ms of 50ms batches)", batches)
	}
	// Without a limit the same batches never expire.
	c = &Cursor{NS: "db.c", src: &slowSource{n: 30, delay: time.Millisecond}}
	c.StartTimeLimit(context.Background())
	for i := 0; i < 3; i++ {
		if _, _, err := c.NextBatch(context.Background(), 10, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
}
