package sim_test

import (
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// The simulations run on schedules of fixed length and spend them
// waiting: run them all at once.
func TestMain(m *testing.M) { testenv.MainWaiting(m, 16) }
