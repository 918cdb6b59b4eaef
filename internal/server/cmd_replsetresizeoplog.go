package server

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdReplSetResizeOplog, requires(clusterNeeds(auth.ActReplSetResizeOplog)), "replSetResizeOplog"))
}

// Bounds of replSetResizeOplog's size in MB, as mongod's IDL validates
// it: at least 990 MB, at most 1 PB.
const (
	minOplogSizeMB = 990
	maxOplogSizeMB = 1 << 30
)

// cmdReplSetResizeOplog changes the oplog's bound, {size: <MB as a
// double>}, trimming the oldest entries at once if the log is over it.
// The new bound lasts until the server restarts (lode serve
// --oplog-size-mb sets it at start). minRetentionHours other than 0 is
// refused: Lode trims by size only.
func cmdReplSetResizeOplog(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "replSetResizeOplog may only be run against the admin database.")
	}
	l := s.eng.Oplog()
	if l == nil {
		return nil, errNoOplog()
	}
	var size float64
	hasSize := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "size":
			// safeDouble: any number.
			if !bsonIsNumber(v.Type) {
				return true, wrongType(req.Name, k, v, "double")
			}
			f := bsonutil.AsFloat64(v)
			if !(f >= minOplogSizeMB) {
				return true, errs.New(errs.Location51024, "BSON field '%s' value must be >= %d, actual value '%v'", k, minOplogSizeMB, f)
			}
			if !(f <= maxOplogSizeMB) {
				return true, errs.New(errs.Location51024, "BSON field '%s' value must be <= %d, actual value '%v'", k, maxOplogSizeMB, f)
			}
			size, hasSize = f, true
		case "minRetentionHours":
			if !bsonIsNumber(v.Type) {
				return true, wrongType(req.Name, k, v, "double")
			}
			f := bsonutil.AsFloat64(v)
			if !(f >= 0) {
				return true, errs.New(errs.Location51024, "BSON field '%s' value must be >= 0, actual value '%v'", k, f)
			}
			if f != 0 {
				return true, errs.New(errs.NotImplemented, "minRetentionHours is not supported by Lode: the oplog is trimmed by size only")
			}
		default:
			return false, nil // resize_oplog.idl is strict
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if hasSize {
		bytes := int64(math.Min(size*1024*1024, math.MaxInt64))
		l.Resize(bytes)
		s.log.Info("replSetResizeOplog success", "size", bytes)
	}
	return nil, nil
}

// errNoOplog is mongod's answer to a command on the oplog when there is
// none (lode serve --oplog-size-mb 0).
func errNoOplog() error {
	return errs.New(errs.NamespaceNotFound, "oplog does not exist")
}
