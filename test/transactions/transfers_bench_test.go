package transactions_test

import (
	"fmt"
	"testing"

	"github.com/lodedb/lode"
)

// BenchmarkTxnTransfers measures transactional transfers (find, two
// updates, commit through session.WithTransaction) per second at 1, 8 and
// 32 concurrent clients. b.N transfers are shared among the clients.
func BenchmarkTxnTransfers(b *testing.B) {
	for _, clients := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			db, err := lode.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			coll := db.Client().Database("bank").Collection("accounts")
			setupAccounts(b, coll)
			b.ResetTimer()
			runTransfers(b, db.Client(), coll, clients, b.N)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transfers/s")
		})
	}
}
