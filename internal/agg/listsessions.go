package agg

import (
	"context"
	"crypto/sha256"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.inView = no
		w.first = yes
		w.inFacet = no
		w.dbLevel = yes
		w.apiV1 = no
		registerStage("$listLocalSessions", stageDef{parse: parseListLocalSessions, access: listSessionsAccess("$listLocalSessions"), sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
	{
		w := anywhere
		w.first = yes
		w.inFacet = no
		w.apiV1 = no
		registerStage("$listSessions", stageDef{parse: parseListSessions, access: listSessionsAccess("$listSessions"), sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
}

// SessionUser names a user for $listLocalSessions and $listSessions: the
// {user, db} elements of their users option, and the authenticated user.
type SessionUser struct{ User, DB string }

// SessionUID is the uid part of a logical session id, as mongod computes
// it: SHA-256 of "user@db", or of nothing when the session was started
// without authentication (mongod's kNoAuthDigest).
func SessionUID(u SessionUser) [32]byte {
	if u.User == "" && u.DB == "" {
		return sha256.Sum256(nil)
	}
	return sha256.Sum256([]byte(u.User + "@" + u.DB))
}

// ListSessionsSpec is the parsed argument of $listLocalSessions and
// $listSessions (mongod's ListSessionsSpec). Without allUsers, Users is
// never empty: an empty or absent list means the current user.
type ListSessionsSpec struct {
	AllUsers bool
	Users    []SessionUser
}

// UIDs returns the uids of Users.
func (sp ListSessionsSpec) UIDs() [][32]byte {
	out := make([][32]byte, len(sp.Users))
	for i, u := range sp.Users {
		out[i] = SessionUID(u)
	}
	return out
}

// LocalSessionLister is implemented by catalogs that can list the
// server's session cache for $listLocalSessions.
type LocalSessionLister interface {
	// LocalSessions returns the cache's records, {_id: {id, uid}, lastUse,
	// user?}, of every user (allUsers) or of the given uids.
	LocalSessions(ctx context.Context, allUsers bool, uids [][32]byte) ([]bsoncore.Document, error)
}

// ParseListSessionsSpec parses the options of stage (mongod's
// listSessionsParseSpec, with its IDL's errors). current is the
// authenticated user; nil means authentication is off, when the current
// user is {user: "", db: ""}.
func ParseListSessionsSpec(stage string, v bsoncore.Value, current *SessionUser, authOn bool) (ListSessionsSpec, error) {
	var sp ListSessionsSpec
	d, ok := v.DocumentOK()
	if !ok {
		return sp, errs.New(errs.TypeMismatch, "%s options must be specified in an object, but found: %s", stage, bsonutil.TypeName(v.Type))
	}
	els, err := d.Elements()
	if err != nil {
		return sp, errs.New(errs.InvalidBSON, "%s: %v", stage, err)
	}
	seen := map[string]bool{}
	for _, el := range els {
		k, ev := el.Key(), el.Value()
		if seen[k] {
			return sp, errs.New(errs.Location40413, "BSON field '%s.%s' is a duplicate field", stage, k)
		}
		seen[k] = true
		switch k {
		case "allUsers":
			b, ok := ev.BooleanOK()
			if !ok {
				return sp, errs.New(errs.TypeMismatch, "BSON field '%s.allUsers' is the wrong type '%s', expected type 'bool'", stage, bsonutil.TypeName(ev.Type))
			}
			sp.AllUsers = b
		case "users":
			arr, ok := ev.ArrayOK()
			if !ok {
				return sp, errs.New(errs.TypeMismatch, "BSON field '%s.users' is the wrong type '%s', expected type 'array'", stage, bsonutil.TypeName(ev.Type))
			}
			vals, err := arr.Values()
			if err != nil {
				return sp, errs.New(errs.InvalidBSON, "%s: %v", stage, err)
			}
			sp.Users = []SessionUser{}
			for _, uv := range vals {
				u, err := ParseSessionUser(stage+".users", uv)
				if err != nil {
					return sp, err
				}
				sp.Users = append(sp.Users, u)
			}
		case "$_internalPredicate":
			// mongos's rewrite of the stage; not honoured by Lode.
			return sp, errs.New(errs.NotImplemented, "%s: $_internalPredicate is not supported by Lode", stage)
		default:
			return sp, errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", stage, k)
		}
	}
	if sp.AllUsers && len(sp.Users) > 0 {
		return sp, errs.New(errs.UnsupportedFormat, "%s may not specify {allUsers:true} and {users:[...]} at the same time", stage)
	}
	if !sp.AllUsers && len(sp.Users) == 0 {
		switch {
		case current != nil:
			sp.Users = []SessionUser{*current}
		case authOn:
			return sp, errs.New(errs.Unauthorized, "There is no user authenticated")
		default:
			sp.Users = []SessionUser{{}}
		}
	}
	return sp, nil
}

// ParseSessionUser reads a {user, db} document at field (for errors:
// "$listLocalSessions.users", "killAllSessions.0"), strictly as mongod's
// IDL does: both fields required, strings, no others, no duplicates.
func ParseSessionUser(field string, v bsoncore.Value) (SessionUser, error) {
	var u SessionUser
	d, ok := v.DocumentOK()
	if !ok {
		return u, errs.New(errs.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type 'object'", field, bsonutil.TypeName(v.Type))
	}
	els, err := d.Elements()
	if err != nil {
		return u, errs.New(errs.InvalidBSON, "%s: %v", field, err)
	}
	var hasUser, hasDB bool
	for _, el := range els {
		var dst *string
		switch el.Key() {
		case "user":
			if hasUser {
				return u, errs.New(errs.Location40413, "BSON field '%s.user' is a duplicate field", field)
			}
			dst, hasUser = &u.User, true
		case "db":
			if hasDB {
				return u, errs.New(errs.Location40413, "BSON field '%s.db' is a duplicate field", field)
			}
			dst, hasDB = &u.DB, true
		default:
			return u, errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", field, el.Key())
		}
		s, ok := el.Value().StringValueOK()
		if !ok {
			return u, errs.New(errs.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'string'", field, el.Key(), bsonutil.TypeName(el.Value().Type))
		}
		*dst = s
	}
	if !hasUser {
		return u, errs.New(errs.Location40414, "BSON field '%s.user' is missing but a required field", field)
	}
	if !hasDB {
		return u, errs.New(errs.Location40414, "BSON field '%s.db' is missing but a required field", field)
	}
	return u, nil
}

// listLocalSessionsStage is $listLocalSessions: a source stage listing
// the server's session cache, first in an {aggregate: 1} pipeline.
type listLocalSessionsStage struct {
	raw bsoncore.Value
	sp  ListSessionsSpec
}

func parseListLocalSessions(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	if pc.Coll != "" {
		return nil, errs.New(errs.InvalidNamespace, "$listLocalSessions must be run against the database with {aggregate: 1}, not a collection")
	}
	sp, err := ParseListSessionsSpec("$listLocalSessions", v, pc.SessionUser, pc.AuthOn)
	if err != nil {
		return nil, err
	}
	return []stage{&listLocalSessionsStage{raw: v, sp: sp}}, nil
}

func (s *listLocalSessionsStage) name() string { return "$listLocalSessions" }
func (s *listLocalSessionsStage) spec() bsoncore.Document {
	return specDoc("$listLocalSessions", s.raw)
}
func (s *listLocalSessionsStage) source() {}

func (s *listLocalSessionsStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	l, ok := rc.cat.(LocalSessionLister)
	if !ok {
		return &sliceIter{}, nil
	}
	docs, err := l.LocalSessions(rc.ctx, s.sp.AllUsers, s.sp.UIDs())
	if err != nil {
		return nil, err
	}
	return &sliceIter{docs: docs}, nil
}

// parseListSessions is $listSessions: on config.system.sessions, a $match
// keeping the records of the users asked for (none for allUsers), as
// mongod's DocumentSourceListSessions is.
func parseListSessions(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	if pc.DB != "config" || pc.Coll != "system.sessions" {
		return nil, errs.New(errs.InvalidNamespace, "$listSessions may only be run against config.system.sessions")
	}
	sp, err := ParseListSessionsSpec("$listSessions", v, pc.SessionUser, pc.AuthOn)
	if err != nil {
		return nil, err
	}
	filter := bsoncore.NewDocumentBuilder().Build()
	if !sp.AllUsers {
		in := bsoncore.NewArrayBuilder()
		for _, uid := range sp.UIDs() {
			in.AppendBinary(0, uid[:])
		}
		filter = bsoncore.NewDocumentBuilder().
			AppendDocument("_id.uid", bsoncore.NewDocumentBuilder().AppendArray("$in", in.Build()).Build()).
			Build()
	}
	return parseMatch(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: filter}, pc)
}

// listSessionsAccess: listSessions on the cluster, unless the stage lists
// only the user's own sessions (no users, or users naming only oneself),
// as mongod's listSessionsRequiredPrivileges.
func listSessionsAccess(name string) stageAccess {
	return func(spec bsoncore.Value, _ Namespace) ([]Access, error) {
		a := Access{Scope: ScopeCluster, Actions: []string{"listSessions"}}
		if sp, err := ParseListSessionsSpec(name, spec, nil, false); err == nil && !sp.AllUsers {
			a.SelfUsers = sp.Users
			if len(a.SelfUsers) == 1 && a.SelfUsers[0] == (SessionUser{}) {
				a.SelfUsers = []SessionUser{} // none named: oneself
			}
		}
		return []Access{a}, nil
	}
}
