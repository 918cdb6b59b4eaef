package migrate

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestTransient: which server answers a restart of either side explains
// (the copy starts the namespace again), and which it does not.
func TestTransient(t *testing.T) {
	for _, c := range []struct {
		code int32
		want bool
	}{
		{43, true},     // CursorNotFound: a getMore reaching a restarted source
		{11600, true},  // InterruptedAtShutdown
		{91, true},     // ShutdownInProgress
		{11000, false}, // DuplicateKey: the target's answer decides
		{2, false},     // BadValue
	} {
		err := mongo.CommandError{Code: c.code, Message: "x"}
		if got := transient(err); got != c.want {
			t.Errorf("transient(code %d) = %v, want %v", c.code, got, c.want)
		}
	}
	if transient(nil) || transient(errors.New("a refusal")) {
		t.Error("nil or a plain error is transient")
	}
}
