package server

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

// driverPing is the ping a driver sends on an established session with
// a client-side timeout: lsid, the gossiped $clusterTime, maxTimeMS and
// $readPreference beside $db.
func driverPing() bsoncore.Document {
	uuid := make([]byte, 16)
	for i := range uuid {
		uuid[i] = byte(i * 7)
	}
	return bsoncore.NewDocumentBuilder().
		AppendInt32("ping", 1).
		AppendDocument("lsid", bsoncore.NewDocumentBuilder().AppendBinary("id", 4, uuid).Build()).
		AppendDocument("$clusterTime", bsoncore.NewDocumentBuilder().
			AppendTimestamp("clusterTime", 1, 1).
			AppendDocument("signature", bsoncore.NewDocumentBuilder().
				AppendBinary("hash", 0, make([]byte, 20)).AppendInt64("keyId", 0).Build()).
			Build()).
		AppendInt64("maxTimeMS", 600000).
		AppendDocument("$readPreference", bsoncore.NewDocumentBuilder().AppendString("mode", "primaryPreferred").Build()).
		AppendString("$db", "admin").
		Build()
}

// BenchmarkPingRoundTrip is one client's {ping: 1} round trips over a
// real 127.0.0.1 connection: framing, parsing, dispatch, the session and
// cluster-time handling and the reply write, as a driver drives them.
// Its allocations are the server's per command (the client reuses its
// buffers); they guard the command path against new per-request costs.
func BenchmarkPingRoundTrip(b *testing.B) {
	for _, c := range []struct {
		name string
		cmd  bsoncore.Document
	}{
		{"bare", bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()},
		{"driver", driverPing()},
	} {
		b.Run(c.name, func(b *testing.B) {
			addr := benchServer(b)
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			r := bufio.NewReader(nc)
			msg := wire.AppendMsg(nil, 1, 0, 0, c.cmd)
			var buf []byte
			roundTrip := func() {
				if _, err := nc.Write(msg); err != nil {
					b.Fatal(err)
				}
				hdr, err := r.Peek(4)
				if err != nil {
					b.Fatal(err)
				}
				n := int(binary.LittleEndian.Uint32(hdr))
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				if _, err := io.ReadFull(r, buf[:n]); err != nil {
					b.Fatal(err)
				}
			}
			roundTrip()
			m, err := wire.DecodeMessage(buf[:binary.LittleEndian.Uint32(buf)])
			if err != nil {
				b.Fatal(err)
			}
			if ok, _ := m.(*wire.Msg).Body.Lookup("ok").AsFloat64OK(); ok != 1 {
				b.Fatalf("ping: %v", m.(*wire.Msg).Body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				roundTrip()
			}
		})
	}
}

// benchServer serves a fresh engine on 127.0.0.1:0 for a benchmark.
func benchServer(b *testing.B) string {
	s, _ := newBenchServer(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = s.Serve(ln); close(done) }()
	b.Cleanup(func() { s.Close(); <-done })
	return ln.Addr().String()
}
