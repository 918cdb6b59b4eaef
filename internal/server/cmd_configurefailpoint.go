package server

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdConfigureFailPoint, authenticated(), "configureFailPoint").forTests())
}

// cmdConfigureFailPoint sets a failpoint, as mongod's test command does:
// {configureFailPoint: name, mode, data}. It is served only with test
// commands enabled (dispatch answers CommandNotFound otherwise), on the
// admin database. Lode has the failCommand, onPrimaryTransactionalWrite,
// maxTimeAlwaysTimeOut and failGetMoreAfterCursorCheckout failpoints
// (failpoint.go); any other name is FailPointSetFailed, mongod's error
// for a failpoint it does not have. The reply is {count: times the failpoint fired before}.
func cmdConfigureFailPoint(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "configureFailPoint may only be run against the admin database.")
	}
	// mongod reads the name with BSONElement::str(): a non-string is "".
	name, _ := req.Cmd.Index(0).Value().StringValueOK()
	var fp *failPoint
	switch name {
	case "failCommand":
		fp = &s.failCommand
	case "onPrimaryTransactionalWrite":
		fp = &s.onPrimaryTransactionalWrite
	case "maxTimeAlwaysTimeOut":
		fp = &s.maxTimeAlwaysTimeOut
	case "failGetMoreAfterCursorCheckout":
		fp = &s.failGetMoreAfterCursorCheckout
	default:
		return nil, errs.New(errs.FailPointSetFailed, "%s not found", name)
	}
	setting, err := parseFailPointSetting(req.Cmd)
	if err != nil {
		return nil, err
	}
	before := fp.set(setting)
	s.log.Warn("Set failpoint", "failPointName", name, "mode", setting.mode.String(), "n", setting.n)
	b := bsoncore.NewDocumentBuilder()
	if before <= math.MaxInt32 {
		b.AppendInt32("count", int32(before))
	} else {
		b.AppendInt64("count", before)
	}
	return b.Build(), nil
}
