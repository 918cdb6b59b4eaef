package clients

import (
	"strings"
	"testing"
)

// TestPlanCacheMongosh: the plan cache's handles through mongosh's
// helpers (plancache_mongosh.js).
func TestPlanCacheMongosh(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "plancache_mongosh.js")
	if !strings.Contains(out, "plancache OK") {
		t.Fatalf("plancache_mongosh.js did not finish:\n%s", out)
	}
}
