package server

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/mongolog"
)

func init() {
	register(admin(cmdLogRotate, requires(clusterNeeds(auth.ActLogRotate)), "logRotate"))
}

// cmdLogRotate is mongod's logRotate: {logRotate: 1} or {logRotate:
// "server"} rotates the server log through Config.RotateLog (lode serve
// --logpath: the file is renamed with a UTC timestamp suffix and a new
// one opened, or reopened in place with --logRotate reopen). Without a
// log file there is nothing to rotate and it succeeds, as mongod does
// when it logs to the console. Lode has no audit log, so "audit" and any
// other log type is mongod's NoSuchKey "Unknown log type for rotate".
func cmdLogRotate(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "logRotate may only be run against the admin database.")
	}
	if err := eachArgLax(req, func(string, bsoncore.Value) (bool, error) { return false, nil }); err != nil {
		return nil, err
	}
	logType := ""
	if t, ok := req.Cmd.Index(0).Value().StringValueOK(); ok {
		logType = t
	}
	s.log.Info("Log rotation initiated", mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDLogRotate, "logType", logType)
	if logType != "" && logType != "server" {
		s.log.Warn("Unknown log type for rotate", mongolog.KeyComponent, "CONTROL", "logType", logType)
		return nil, errs.New(errs.NoSuchKey, "Unknown log type for rotate")
	}
	if s.cfg.RotateLog == nil {
		return bsoncore.NewDocumentBuilder().Build(), nil
	}
	if _, err := s.cfg.RotateLog(); err != nil {
		s.log.Warn("Log rotation failed", mongolog.KeyComponent, "CONTROL", "reason", err.Error())
		code := errs.InternalError
		if errors.Is(err, mongolog.ErrRotateTargetExists) {
			code = errs.FileRenameFailed
		}
		return nil, errs.Wrap(err, code, "%v", err)
	}
	return bsoncore.NewDocumentBuilder().Build(), nil
}
