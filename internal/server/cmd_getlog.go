package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdGetLog, requires(clusterNeeds(auth.ActGetLog)), "getLog"))
}

// cmdGetLog returns recent log lines: getLog "*" lists the logs, "global"
// returns recent lines and "startupWarnings" the (empty) startup warnings.
func cmdGetLog(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "getLog may only be run against the admin database.")
	}
	v := req.Cmd.Index(0).Value()
	name, ok := v.StringValueOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "Argument to getLog must be of type String; found %s of type %s", v.String(), bsonutil.TypeName(v.Type))
	}
	switch name {
	case "*":
		return bsoncore.NewDocumentBuilder().AppendArray("names",
			bsoncore.NewArrayBuilder().AppendString("global").AppendString("startupWarnings").Build()).Build(), nil
	case "startupWarnings":
		return bsoncore.NewDocumentBuilder().
			AppendInt32("totalLinesWritten", 0).
			AppendArray("log", bsoncore.NewArrayBuilder().Build()).Build(), nil
	case "global":
		lines, total := s.logs.snapshot()
		ab := bsoncore.NewArrayBuilder()
		for _, l := range lines {
			ab.AppendString(l)
		}
		return bsoncore.NewDocumentBuilder().
			AppendInt32("totalLinesWritten", int32(total)).
			AppendArray("log", ab.Build()).Build(), nil
	}
	return nil, errs.New(errs.OperationFailed, "No log named '%s'", name)
}
