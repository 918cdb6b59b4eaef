package errs

import (
	"context"
	"errors"
	"testing"
)

func TestWrapUnwrap(t *testing.T) {
	e := Wrap(context.Canceled, Interrupted, "operation was interrupted")
	if !errors.Is(e, context.Canceled) {
		t.Fatal("errors.Is does not see the cause")
	}
	if e.Error() != "Interrupted (11601): operation was interrupted" {
		t.Fatalf("message %q", e.Error())
	}
	if New(BadValue, "x").Unwrap() != nil {
		t.Fatal("an error without a cause unwraps to something")
	}
	var target *Error
	if !errors.As(error(e), &target) || target.Code != Interrupted {
		t.Fatal("errors.As")
	}
}

// TestChangeStreamCodes: the codes mongod 7.0 labels
// ResumableChangeStreamError on a change stream's getMore (those the
// change streams specification's tests resume after) and
// NonResumableChangeStreamError.
func TestChangeStreamCodes(t *testing.T) {
	for _, c := range []Code{6, 7, 89, 91, 133, 150, 189, 234, 262, 9001, 10107, 11600, 11602, 13388, 13435, 13436} {
		if !ResumableChangeStreamCode(c) || NonResumableChangeStreamCode(c) {
			t.Errorf("%d (%s) is resumable", c, c.Name())
		}
	}
	for _, c := range []Code{1, 2, 43, 50, 63, 136, 237, 280, 286} {
		if ResumableChangeStreamCode(c) {
			t.Errorf("%d (%s) is not resumable", c, c.Name())
		}
	}
	if !NonResumableChangeStreamCode(280) || !NonResumableChangeStreamCode(286) {
		t.Error("ChangeStreamFatalError and ChangeStreamHistoryLost are NonResumableChangeStreamError")
	}
	if RetryChangeStream.Name() != "RetryChangeStream" || StaleEpoch.Name() != "StaleEpoch" {
		t.Errorf("names: %s %s", RetryChangeStream.Name(), StaleEpoch.Name())
	}
}
