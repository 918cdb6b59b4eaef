package testenv

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// CmdErr returns err as a command error, failing the test if it is not one.
func CmdErr(t testing.TB, err error) mongo.CommandError {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("want a command error, got %T %v", err, err)
	}
	return ce
}

// WantCmdError fails unless err is a command error with code and, when
// name is not empty, codeName name.
func WantCmdError(t testing.TB, err error, code int32, name string) mongo.CommandError {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != code || (name != "" && ce.Name != name) {
		t.Fatalf("want error %d %s, got %v", code, name, err)
	}
	return ce
}

// WantCode fails unless err is a server error (command, write or bulk
// write error) carrying code; what names the operation in the message.
func WantCode(t testing.TB, what string, err error, code int32) {
	t.Helper()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(int(code)) {
		t.Fatalf("%s: got %v, want code %d", what, err, code)
	}
}

// WriteErr returns the single write error of err.
func WriteErr(t testing.TB, err error) mongo.WriteError {
	t.Helper()
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("want one write error, got %T %v", err, err)
	}
	return we.WriteErrors[0]
}

// ErrCode returns the code and message of err's single write error, or of
// the command error.
func ErrCode(t testing.TB, err error) (int, string) {
	t.Helper()
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) == 1 {
		return we.WriteErrors[0].Code, we.WriteErrors[0].Message
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code), ce.Message
	}
	t.Fatalf("want one write error or a command error, got %T %v", err, err)
	return 0, ""
}
