package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdKillAllSessionsByPattern, requires(clusterNeeds(auth.ActKillAnySession)), "killAllSessionsByPattern").endingSessions())
}

// cmdKillAllSessionsByPattern kills the sessions matching any of the
// patterns, {killAllSessionsByPattern: [{lsid?, uid?}, ...]} (every
// session for an empty list): their open transactions abort and their
// cursors are killed. A pattern with lsid matches that session; with uid,
// the sessions of that user digest; with both, the session if it has
// that uid; with neither, every session. The users and roles fields
// (mongod's impersonation of the ops' users) are refused with
// NotImplemented: Lode does not impersonate users.
func cmdKillAllSessionsByPattern(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	vals, err := firstArgArray(req)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	if len(vals) == 0 {
		s.killSessions(ctx, nil)
		return nil, nil
	}
	var pats []sessionMatcher
	for _, x := range vals {
		m, err := parseKillPattern(x)
		if err != nil {
			return nil, err
		}
		pats = append(pats, m)
	}
	s.killSessions(ctx, func(ss *session) bool {
		for _, m := range pats {
			if m(ss) {
				return true
			}
		}
		return false
	})
	return nil, nil
}

// parseKillPattern reads one KillAllSessionsByPattern document.
func parseKillPattern(v bsoncore.Value) (sessionMatcher, error) {
	const field = "KillAllSessionsByPatternCmd.killAllSessionsByPattern"
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "BSON field '%s' elements must be objects, found %s", field, bsonutil.TypeName(v.Type))
	}
	els, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid document: %v", err)
	}
	var key string
	var hasLsid, hasUID bool
	var uid [32]byte
	for _, el := range els {
		ev := el.Value()
		switch el.Key() {
		case "lsid":
			ld, ok := ev.DocumentOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "BSON field '%s.lsid' is the wrong type '%s', expected type 'object'", field, bsonutil.TypeName(ev.Type))
			}
			k, err := sessionKey(ld)
			if err != nil {
				return nil, err
			}
			u, err := ld.LookupErr("uid")
			if err != nil {
				return nil, errs.New(errs.Location40414, "BSON field '%s.lsid.uid' is missing but a required field", field)
			}
			_, data, ok := u.BinaryOK()
			if !ok || len(data) != 32 {
				return nil, errs.New(errs.TypeMismatch, "BSON field '%s.lsid.uid' is the wrong type '%s', expected type 'binData'", field, bsonutil.TypeName(u.Type))
			}
			key, hasLsid = k, true
			var lu [32]byte
			copy(lu[:], data)
			if hasUID && lu != uid {
				return func(*session) bool { return false }, nil
			}
			uid, hasUID = lu, true
		case "uid":
			_, data, ok := ev.BinaryOK()
			if !ok || len(data) != 32 {
				return nil, errs.New(errs.TypeMismatch, "BSON field '%s.uid' is the wrong type '%s', expected type 'binData'", field, bsonutil.TypeName(ev.Type))
			}
			var pu [32]byte
			copy(pu[:], data)
			if hasUID && pu != uid {
				return func(*session) bool { return false }, nil
			}
			uid, hasUID = pu, true
		case "users", "roles":
			return nil, errs.New(errs.NotImplemented, "killAllSessionsByPattern: %s (impersonation) is not supported by Lode", el.Key())
		default:
			return nil, errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", field, el.Key())
		}
	}
	return func(ss *session) bool {
		if hasLsid && ss.id != key {
			return false
		}
		return !hasUID || ss.owner.uid == uid
	}, nil
}
