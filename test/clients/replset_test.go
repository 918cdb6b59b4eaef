package clients

import (
	"strings"
	"testing"
)

// TestMongoshReplicaSetHelpers: rs.status(), rs.conf(),
// db.getReplicationInfo(), db.printReplicationInfo() and
// replSetResizeOplog through mongosh (replset_mongosh.js).
func TestMongoshReplicaSetHelpers(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "replset_mongosh.js")
	if !strings.Contains(out, "replset helpers OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
