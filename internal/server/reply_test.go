package server

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// TestPingReplyShape: a replica-set member answers ping with exactly
// operationTime, $clusterTime {clusterTime, signature {hash, keyId}} and
// ok: 1, in that order; a standalone with {ok: 1} alone. okReply writes
// them in one piece, so this pins its layout and clusterTimeLen.
func TestPingReplyShape(t *testing.T) {
	ping := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
	s := newTestServer(t)
	r := s.dispatch(context.Background(), nil, ping, false)
	if err := r.Validate(); err != nil {
		t.Fatalf("reply %v: %v", r, err)
	}
	ts := s.eng.Clock().Last()
	want := bsoncore.NewDocumentBuilder().
		AppendTimestamp("operationTime", ts.Sec(), ts.Inc()).
		AppendDocument("$clusterTime", bsoncore.NewDocumentBuilder().
			AppendTimestamp("clusterTime", ts.Sec(), ts.Inc()).
			AppendDocument("signature", bsoncore.NewDocumentBuilder().
				AppendBinary("hash", 0, make([]byte, 20)).
				AppendInt64("keyId", 0).
				Build()).
			Build()).
		AppendDouble("ok", 1).
		Build()
	if !bytes.Equal(r, want) {
		t.Fatalf("replica-set ping reply\n got %v\nwant %v", r, want)
	}
	if got := len(s.clusterTimeFields()) - 5; got != clusterTimeLen {
		t.Fatalf("cluster time fields are %d bytes, clusterTimeLen says %d", got, clusterTimeLen)
	}

	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	sa := New(eng, Config{Logger: slog.New(slog.DiscardHandler), Standalone: true})
	t.Cleanup(func() { sa.Close(); eng.Close() })
	r = sa.dispatch(context.Background(), nil, ping, false)
	if want := bsoncore.NewDocumentBuilder().AppendDouble("ok", 1).Build(); !bytes.Equal(r, want) {
		t.Fatalf("standalone ping reply %v, want %v", r, want)
	}
}
