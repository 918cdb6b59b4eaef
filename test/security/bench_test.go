package security

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkPing is a ping's round trip through the Go driver, plain and
// over TLS, against one `lode serve` in allowTLS mode: what TLS adds to
// the smallest request.
func BenchmarkPing(b *testing.B) {
	p := newPKI(b)
	s := startServer(b, "--tls-mode", "allowTLS", "--tls-cert-file", p.server)
	for _, c := range []struct {
		name string
		tls  bool
	}{{"plain", false}, {"tls", true}} {
		b.Run(c.name, func(b *testing.B) {
			opts := p.tlsURI()
			if !c.tls {
				opts = nil
			}
			client := connect(b, s, opts)
			cmd := bson.D{{Key: "ping", Value: 1}}
			ctx := context.Background()
			if err := client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := client.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
