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
