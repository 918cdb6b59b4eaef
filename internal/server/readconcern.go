package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// waitReadConcern honours a readConcern's cluster times.
//
// afterClusterTime (causally consistent sessions): the command waits
// until every write stamped at or before it is readable.
//
// atClusterTime (snapshot reads): Lode keeps no history of older
// versions, so it serves a snapshot at the requested time only when no
// write committed after it: it waits until the time is readable, and
// refuses with SnapshotTooOld (239) if a later write is already visible.
func (s *Server) waitReadConcern(ctx context.Context, rc bsoncore.Document) error {
	if rc == nil {
		return nil
	}
	after, hasAfter, err := readConcernTime(rc, "afterClusterTime")
	if err != nil {
		return err
	}
	at, hasAt, err := readConcernTime(rc, "atClusterTime")
	if err != nil {
		return err
	}
	if !hasAfter && !hasAt {
		return nil
	}
	if hasAfter && hasAt {
		return errs.New(errs.InvalidOptions, "Specifying a timestamp for readConcern snapshot in a causally consistent session is not allowed. See https://docs.mongodb.com/manual/core/read-isolation-consistency-recency/#causal-consistency")
	}
	if hasAt && readConcernLevel(rc) != "snapshot" {
		return errs.New(errs.InvalidOptions, "atClusterTime is only allowed with readConcern level snapshot")
	}
	name, ts := "afterClusterTime", after
	if hasAt {
		name, ts = "atClusterTime", at
	}
	if cur := s.eng.Clock().Last(); ts > cur {
		return errs.New(errs.InvalidOptions, "readConcern %s value must not be greater than the current clusterTime. Requested clusterTime: %s; current clusterTime: %s", name, tsString(ts), tsString(cur))
	}
	if err := s.eng.WaitVisible(ctx, ts); err != nil {
		return err
	}
	if hasAt {
		vis := s.eng.Clock().Last()
		if l := s.eng.Oplog(); l != nil {
			vis = l.VisibleTS()
		}
		if vis > ts {
			return errs.New(errs.SnapshotTooOld, "Read timestamp %s is older than the oldest available timestamp: Lode keeps no history, and writes have committed since.", tsString(ts))
		}
	}
	return nil
}

func readConcernTime(rc bsoncore.Document, k string) (oplog.TS, bool, error) {
	v, err := rc.LookupErr(k)
	if err != nil {
		return 0, false, nil
	}
	sec, inc, ok := v.TimestampOK()
	if !ok {
		return 0, false, errs.New(errs.TypeMismatch, "BSON field 'readConcern.%s' is the wrong type '%s', expected type 'timestamp'", k, bsonutil.TypeName(v.Type))
	}
	return oplog.MakeTS(sec, inc), true, nil
}

func tsString(ts oplog.TS) string {
	return bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, ts.Sec(), ts.Inc())}.String()
}

// runSnapshotRead runs a read with readConcern "snapshot" outside a
// transaction: at the snapshot the engine holds for its atClusterTime,
// or at a new one whose time the reply returns as atClusterTime (in the
// cursor document for find and aggregate, at the top for distinct), as
// mongod does.
func (s *Server) runSnapshotRead(ctx context.Context, h handler, req *Request, a sessionArgs) (bsoncore.Document, error) {
	if req.command().onCursor {
		// A cursor reads the snapshot its command opened it on; drivers
		// repeat the session's readConcern on its getMores.
		return s.runSessionCmd(ctx, h, req, a)
	}
	if req.command().snapshotRead != yes {
		return nil, errs.New(errs.InvalidOptions, "Command %s does not support { level: \"snapshot\" } :: caused by :: read concern snapshot is only supported by find, aggregate and distinct outside a transaction", req.Name)
	}
	if !s.replSet() {
		return nil, errs.New(errs.InvalidOptions, "Command %s does not support { level: \"snapshot\" } :: caused by :: snapshot reads need a replica set; lode serve --standalone presents a standalone server", req.Name)
	}
	if _, has, err := readConcernTime(a.readConcern, "afterClusterTime"); err != nil {
		return nil, err
	} else if has {
		return nil, errs.New(errs.InvalidOptions, "Specifying a timestamp for readConcern snapshot in a causally consistent session is not allowed. See https://docs.mongodb.com/manual/core/read-isolation-consistency-recency/#causal-consistency")
	}
	at, hasAt, err := readConcernTime(a.readConcern, "atClusterTime")
	if err != nil {
		return nil, err
	}
	if hasAt {
		if cur := s.eng.Clock().Last(); at > cur {
			return nil, errs.New(errs.InvalidOptions, "readConcern atClusterTime value must not be greater than the current clusterTime. Requested clusterTime: %s; current clusterTime: %s", tsString(at), tsString(cur))
		}
		if err := s.eng.WaitVisible(ctx, at); err != nil {
			return nil, err
		}
	}
	ctx, ts, release, err := s.eng.SnapshotRead(ctx, at, hasAt)
	if err != nil {
		return nil, err
	}
	defer release()
	body, err := s.runSessionCmd(ctx, h, req, a)
	if err != nil || body == nil {
		return body, err
	}
	return withAtClusterTime(body, ts), nil
}

// withAtClusterTime adds atClusterTime to a snapshot read's reply: inside
// its cursor document when it has one, else at the top.
func withAtClusterTime(body bsoncore.Document, ts oplog.TS) bsoncore.Document {
	field := bsoncore.NewDocumentBuilder().AppendTimestamp("atClusterTime", ts.Sec(), ts.Inc()).Build()
	cur, err := body.LookupErr("cursor")
	if err != nil || cur.Type != bsoncore.TypeEmbeddedDocument {
		return appendFields(body, field)
	}
	out := bsoncore.NewDocumentBuilder()
	elems, _ := body.Elements()
	for _, el := range elems {
		if el.Key() == "cursor" {
			out.AppendDocument("cursor", appendFields(el.Value().Document(), field))
			continue
		}
		out.AppendValue(el.Key(), el.Value())
	}
	return out.Build()
}
