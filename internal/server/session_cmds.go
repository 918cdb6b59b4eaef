package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/opstats"
)

// clientLsid is a session id as a client sends it to endSessions,
// refreshSessions and killSessions: {id: UUID, uid?: BinData}, with the
// uid filled in from the authenticated user when absent.
type clientLsid struct {
	key string
	uid [32]byte
}

// sessionIDs reads the array of lsid documents that endSessions,
// refreshSessions and killSessions take as their first field. A uid other
// than the caller's own is Unauthorized, as in mongod, unless the caller
// holds killAnySession and mayImpersonate is set (killSessions).
func (s *Server) sessionIDs(ctx context.Context, req *Request, mayImpersonate bool) ([]clientLsid, error) {
	vals, err := firstArgArray(req)
	if err != nil {
		return nil, err
	}
	own := s.sessionOwnerOf(ctx, req).uid
	out := make([]clientLsid, 0, len(vals))
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field '%s' elements must be objects, found %s", req.Name, bsonutil.TypeName(x.Type))
		}
		k, err := sessionKey(d)
		if err != nil {
			return nil, err
		}
		if err := checkLsidFields(req.Name, d); err != nil {
			return nil, err
		}
		l := clientLsid{key: k, uid: own}
		if uv, err := d.LookupErr("uid"); err == nil {
			_, data, ok := uv.BinaryOK()
			if !ok || len(data) != 32 {
				return nil, errs.New(errs.TypeMismatch, "BSON field '%s.uid' is the wrong type '%s', expected type 'binData'", req.Name, bsonutil.TypeName(uv.Type))
			}
			copy(l.uid[:], data)
			if l.uid != own && !(mayImpersonate && s.mayKillAnySession(ctx, req)) {
				return nil, errs.New(errs.Unauthorized, "Unauthorized to set user digest in LogicalSessionId")
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// checkLsidFields refuses the fields of a client lsid other than id and
// uid: mongod's internal-transaction fields (txnNumber, txnUUID) with
// NotImplemented, anything else as its strict IDL does.
func checkLsidFields(cmd string, d bsoncore.Document) error {
	els, err := d.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid lsid: %v", err)
	}
	for _, el := range els {
		switch el.Key() {
		case "id", "uid":
		case "txnNumber", "txnUUID":
			return errs.New(errs.NotImplemented, "%s: internal transaction sessions (lsid.%s) are not supported by Lode", cmd, el.Key())
		default:
			return errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", cmd, el.Key())
		}
	}
	return nil
}

// mayKillAnySession: authorization is off, or the user holds
// killAnySession on the cluster.
func (s *Server) mayKillAnySession(ctx context.Context, req *Request) bool {
	if !s.cfg.Auth {
		return true
	}
	if req.conn == nil {
		return false
	}
	g, err := req.conn.grants(ctx)
	return err == nil && g != nil && g.Allowed(auth.ClusterResource, auth.Actions(auth.ActKillAnySession))
}

// sessionMatcher selects sessions to kill, as mongod's
// KillAllSessionsByPattern set: nil matches every session.
type sessionMatcher func(ss *session) bool

// killSessions kills the sessions match selects, as mongod's
// killSessionsLocal: their running commands are interrupted (11601),
// their open transactions abort and their cursors are killed. The
// sessions themselves live on (their retryable-write history too);
// endSessions and expiry end them. A nil match kills every session and
// every cursor opened in one. The command running the kill (ctx) is not
// interrupted.
func (s *Server) killSessions(ctx context.Context, match sessionMatcher) {
	keys := map[string]bool{}
	var hit []*session
	for _, ss := range s.sessions.list() {
		if match == nil || match(ss) {
			keys[ss.id] = true
			hit = append(hit, ss)
		}
	}
	self, _ := opstats.HolderFrom(ctx).(*runningOp)
	for _, op := range s.ops().snapshot() {
		if op == self {
			continue
		}
		lsid, ok := op.cmd.Lookup("lsid").DocumentOK()
		if !ok {
			continue
		}
		if k, err := sessionKey(lsid); err == nil && keys[k] {
			s.ops().kill(op.id)
		}
	}
	for _, ss := range hit {
		ss.mu.Lock()
		ss.abortTxn(errs.New(errs.NoSuchTransaction, "Transaction %d has been aborted because its session was killed.", ss.txnNumber))
		ss.mu.Unlock()
	}
	if match == nil {
		keys = nil
	}
	s.cursors.KillSessions(keys)
}

// lsidMatcher matches the sessions of lsids.
func lsidMatcher(ids []clientLsid) sessionMatcher {
	want := make(map[clientLsid]bool, len(ids))
	for _, l := range ids {
		want[l] = true
	}
	return func(ss *session) bool { return want[clientLsid{key: ss.id, uid: ss.owner.uid}] }
}

// uidMatcher matches the sessions of the given users.
func uidMatcher(uids ...[32]byte) sessionMatcher {
	want := make(map[[32]byte]bool, len(uids))
	for _, u := range uids {
		want[u] = true
	}
	return func(ss *session) bool { return want[ss.owner.uid] }
}

// sessionUsers reads an array of {user, db} documents (killAllSessions).
func sessionUsers(req *Request) ([][32]byte, error) {
	vals, err := firstArgArray(req)
	if err != nil {
		return nil, err
	}
	var out [][32]byte
	for _, x := range vals {
		u, err := agg.ParseSessionUser(req.Name, x)
		if err != nil {
			return nil, err
		}
		out = append(out, agg.SessionUID(u))
	}
	return out, nil
}

// firstArgArray returns the elements of the array a session command
// takes as its command field.
func firstArgArray(req *Request) ([]bsoncore.Value, error) {
	v := req.Cmd.Index(0).Value()
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, wrongType(req.Name, req.Name, v, "array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid array: %v", err)
	}
	return vals, nil
}
