package queue_test

import (
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// The worker tests wait for leases and visibility timeouts to expire:
// run them all at once.
func TestMain(m *testing.M) { testenv.MainWaiting(m, 16) }
