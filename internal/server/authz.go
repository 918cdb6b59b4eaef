package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// need is one privilege a command requires: actions on a resource.
type need struct {
	res  auth.Resource
	acts auth.ActionSet
	// heldRole, when set, waives the need for a user granted that role
	// directly: mongod lets a user see its own roles with rolesInfo.
	heldRole *auth.RoleName
	// selfUsers, when set, waives the need for a user who is every one of
	// them: $listLocalSessions and $listSessions list one's own sessions
	// without listSessions.
	selfUsers []agg.SessionUser
}

// authzRule returns what a command needs. open means any client may run
// it, authenticated or not; authOnly means any authenticated user may
// (the handler may check more, as getMore and listDatabases do).
type authzRule struct {
	open     bool
	authOnly bool
	needs    func(req *Request) ([]need, error)
	// check, for commands whose rules depend on who asks (updateUser on
	// oneself, listCollections with authorizedCollections), decides for an
	// authenticated user with the command's own messages, returning the
	// privileges a cursor it opens records.
	check func(req *Request, g *auth.Grants) ([]need, error)
	// waived, with needs, lets an authenticated user run the command
	// without them when it says so (usersInfo about oneself).
	waived func(req *Request, g *auth.Grants) bool
}

// decided reports whether the rule says anything: a command whose rule
// does not is refused when authorization is on, and refused by
// TestEveryCommandDecidesEveryTrait.
func (r authzRule) decided() bool {
	return r.open || r.authOnly || r.needs != nil || r.check != nil
}

// anyone is the rule of a command any client may run.
func anyone() authzRule { return authzRule{open: true} }

// authenticated is the rule of a command any authenticated user may run.
func authenticated() authzRule { return authzRule{authOnly: true} }

// requires is the rule of a command that needs what f says.
func requires(f func(req *Request) ([]need, error)) authzRule { return authzRule{needs: f} }

// checkedBy is the rule of a command whose check depends on who asks.
func checkedBy(f func(req *Request, g *auth.Grants) ([]need, error)) authzRule {
	return authzRule{check: f}
}

// collNeeds: actions on the collection the command names first.
func collNeeds(acts ...auth.Action) func(req *Request) ([]need, error) {
	set := auth.Actions(acts...)
	return func(req *Request) ([]need, error) {
		return []need{{res: auth.CollResource(req.DB, cmdColl(req)), acts: set}}, nil
	}
}

// dbNeeds: actions on the command's database.
func dbNeeds(acts ...auth.Action) func(req *Request) ([]need, error) {
	set := auth.Actions(acts...)
	return func(req *Request) ([]need, error) { return []need{{res: auth.DBResource(req.DB), acts: set}}, nil }
}

// clusterNeeds: actions on the cluster.
func clusterNeeds(acts ...auth.Action) func(req *Request) ([]need, error) {
	set := auth.Actions(acts...)
	return func(*Request) ([]need, error) { return []need{{res: auth.ClusterResource, acts: set}}, nil }
}

// cmdColl is the collection named by the command's first field.
func cmdColl(req *Request) string {
	if el, err := req.Cmd.IndexErr(0); err == nil {
		if s, ok := el.Value().StringValueOK(); ok {
			return s
		}
	}
	return ""
}

// updateNeeds: update, plus insert when a statement upserts.
func updateNeeds(req *Request) ([]need, error) {
	acts := auth.Actions(auth.ActUpdate)
	if vals, ok := req.stmtValues("updates"); ok {
		for _, u := range vals {
			if d, ok := u.DocumentOK(); ok && d.Lookup("upsert").Equal(bsoncore.Value{Type: bsoncore.TypeBoolean, Data: []byte{1}}) {
				acts.Add(auth.ActInsert)
			}
		}
	}
	return []need{{res: auth.CollResource(req.DB, cmdColl(req)), acts: acts}}, nil
}

// findAndModifyNeeds: find and update (remove for remove: true; insert too
// for upsert).
func findAndModifyNeeds(req *Request) ([]need, error) {
	acts := auth.Actions(auth.ActFind)
	if b, ok := req.Cmd.Lookup("remove").BooleanOK(); ok && b {
		acts.Add(auth.ActRemove)
	} else {
		acts.Add(auth.ActUpdate)
		if b, ok := req.Cmd.Lookup("upsert").BooleanOK(); ok && b {
			acts.Add(auth.ActInsert)
		}
	}
	return []need{{res: auth.CollResource(req.DB, cmdColl(req)), acts: acts}}, nil
}

// aggregateNeeds: what the pipeline needs on every namespace it reads or
// writes, at any depth, as each stage declares it in agg's registry
// (agg.PipelineAccess, docs/authorization.md).
func aggregateNeeds(req *Request) ([]need, error) {
	acc, err := agg.PipelineAccess(agg.Namespace{DB: req.DB, Coll: cmdColl(req)}, docArray(req.Cmd.Lookup("pipeline")))
	if err != nil {
		return nil, err
	}
	return accessNeeds(acc)
}

// accessNeeds turns a pipeline's declared privileges into needs. An
// action name agg declares that auth does not know is a bug (test/authz
// runs every stage), refused rather than ignored.
func accessNeeds(acc []agg.Access) ([]need, error) {
	out := make([]need, 0, len(acc))
	for _, a := range acc {
		var acts auth.ActionSet
		for _, name := range a.Actions {
			act, ok := auth.ParseAction(name)
			if !ok {
				return nil, errs.New(errs.InternalError, "aggregation stage declares an unknown action %s", name)
			}
			acts.Add(act)
		}
		n := need{acts: acts, selfUsers: a.SelfUsers}
		switch a.Scope {
		case agg.ScopeCollection:
			n.res = auth.CollResource(a.DB, a.Coll)
		case agg.ScopeDatabase:
			n.res = auth.DBResource(a.DB)
		case agg.ScopeCluster:
			n.res = auth.ClusterResource
		case agg.ScopeAnyNormal:
			n.res = auth.AnyNormalResource
		}
		out = append(out, n)
	}
	return out, nil
}

// listCollectionsCheck follows mongod: authorizedCollections with
// nameOnly is allowed to a user with any privilege in the database (the
// reply then lists only the collections it has privileges on); otherwise
// listCollections on the database.
func listCollectionsCheck(req *Request, g *auth.Grants) ([]need, error) {
	if expr.Truthy(req.Cmd.Lookup("authorizedCollections")) && expr.Truthy(req.Cmd.Lookup("nameOnly")) && g.AnyOnDB(req.DB) {
		return nil, nil
	}
	needs := []need{{res: auth.DBResource(req.DB), acts: auth.Actions(auth.ActListCollections)}}
	if allAllowed(g, needs) {
		return needs, nil
	}
	return nil, errs.New(errs.Unauthorized, "Not authorized to list collections on db: %s", req.DB)
}

// renameCheck is mongod's checkAuthForRenameCollectionCommand: within a
// database (neither collection a system one), renameCollectionSameDB on
// it, dropCollection on the target with dropTarget, and find on the
// source unless the target is unreadable too (a rename must not expose
// what the user cannot read); otherwise, and across databases, find and
// dropCollection on the source, insert and createIndex (dropCollection
// with dropTarget) on the target.
func renameCheck(req *Request, g *auth.Grants) ([]need, error) {
	from, _ := req.Cmd.Lookup("renameCollection").StringValueOK()
	to, _ := req.Cmd.Lookup("to").StringValueOK()
	fdb, fcoll, _ := strings.Cut(from, ".")
	tdb, tcoll, _ := strings.Cut(to, ".")
	src, dst := auth.CollResource(fdb, fcoll), auth.CollResource(tdb, tcoll)
	dropTarget := expr.Truthy(req.Cmd.Lookup("dropTarget"))
	find := auth.Actions(auth.ActFind)
	if fdb == tdb && !strings.HasPrefix(fcoll, "system.") && !strings.HasPrefix(tcoll, "system.") {
		needs := []need{{res: auth.DBResource(fdb), acts: auth.Actions(auth.ActRenameCollectionSameDB)}}
		if dropTarget {
			needs = append(needs, need{res: dst, acts: auth.Actions(auth.ActDropCollection)})
		}
		if allAllowed(g, needs) && (g.Allowed(src, find) || !g.Allowed(dst, find)) {
			return needs, nil
		}
	}
	dstActs := auth.Actions(auth.ActInsert, auth.ActCreateIndex)
	if dropTarget {
		dstActs.Add(auth.ActDropCollection)
	}
	needs := []need{{res: src, acts: auth.Actions(auth.ActFind, auth.ActDropCollection)}, {res: dst, acts: dstActs}}
	if allAllowed(g, needs) {
		return needs, nil
	}
	return nil, errs.New(errs.Unauthorized, "not authorized on %s to execute command %s", req.DB, renderCmd(req.Cmd))
}

// renameNeeds is renameCheck's rule without a user (the localhost
// exception, which grants no rename).
func renameNeeds(req *Request) ([]need, error) {
	from, _ := req.Cmd.Lookup("renameCollection").StringValueOK()
	to, _ := req.Cmd.Lookup("to").StringValueOK()
	fdb, fcoll, _ := strings.Cut(from, ".")
	tdb, tcoll, _ := strings.Cut(to, ".")
	if fdb == tdb {
		return []need{
			{res: auth.DBResource(fdb), acts: auth.Actions(auth.ActRenameCollectionSameDB)},
		}, nil
	}
	return []need{
		{res: auth.CollResource(fdb, fcoll), acts: auth.Actions(auth.ActFind, auth.ActDropCollection)},
		{res: auth.CollResource(tdb, tcoll), acts: auth.Actions(auth.ActInsert, auth.ActCreateIndex, auth.ActCreateCollection)},
	}, nil
}

// explainNeeds: the privileges of the explained command.
func explainNeeds(req *Request) ([]need, error) {
	inner, ok := req.Cmd.Lookup("explain").DocumentOK()
	if !ok {
		return nil, nil
	}
	el, err := inner.IndexErr(0)
	if err != nil {
		return nil, nil
	}
	rule := lookupCommand(el.Key()).authz
	if rule.needs == nil || el.Key() == "explain" {
		return nil, errs.New(errs.Unauthorized, "not authorized to explain command %s", el.Key())
	}
	return rule.needs(&Request{Name: el.Key(), DB: req.DB, Cmd: inner})
}

// createUserNeeds: createUser on the database, and grantRole on the
// database of every role given.
func createUserNeeds(req *Request) ([]need, error) {
	out := []need{{res: auth.DBResource(req.DB), acts: auth.Actions(auth.ActCreateUser)}}
	rs, err := auth.ParseRoles(req.Cmd.Lookup("roles"), req.DB)
	if err != nil {
		return out, nil
	}
	for _, r := range rs {
		out = append(out, need{res: auth.DBResource(r.DB), acts: auth.Actions(auth.ActGrantRole)})
	}
	return out, nil
}

// grantRolesNeeds: grantRole or revokeRole on each role's database
// (grantRolesToUser, revokeRolesFromUser).
func grantRolesNeeds(act auth.Action) func(req *Request) ([]need, error) {
	return func(req *Request) ([]need, error) {
		return orOnDB(req, rolesArgNeeds(req, act), act), nil
	}
}

// usersInfoNeeds: viewUser on the database, except for a user asking
// about itself (checked in authorize).
func usersInfoNeeds(req *Request) ([]need, error) {
	return []need{{res: auth.DBResource(req.DB), acts: auth.Actions(auth.ActViewUser)}}, nil
}

// The role commands' rules follow mongod's
// user_management_commands_common: granting (or revoking) a role needs
// grantRole (revokeRole) on the role's database; granting (revoking) a
// privilege needs it on the privilege's database, or on admin for a
// privilege on the cluster or on more than one database.

// rolesArgNeeds: act on the database of every role of the command's
// roles field.
func rolesArgNeeds(req *Request, act auth.Action) []need {
	rs, _ := auth.ParseRoles(req.Cmd.Lookup("roles"), req.DB)
	out := make([]need, 0, len(rs))
	for _, r := range rs {
		out = append(out, need{res: auth.DBResource(r.DB), acts: auth.Actions(act)})
	}
	return out
}

// privilegesArgNeeds: act on the database each privilege of the
// command's privileges field targets, on admin for one on the cluster,
// anyResource, or collections of any database.
func privilegesArgNeeds(req *Request, act auth.Action) []need {
	ps, _ := auth.ParsePrivileges(req.Cmd.Lookup("privileges"))
	out := make([]need, 0, len(ps))
	for _, p := range ps {
		db := "admin"
		if k := p.Resource.Kind; k == auth.PatternDB || k == auth.PatternCollection {
			db = p.Resource.DB
		}
		out = append(out, need{res: auth.DBResource(db), acts: auth.Actions(act)})
	}
	return out
}

// orOnDB: a list naming nothing (missing, empty or unparsable, which the
// command then refuses) needs act on the command's database, so that a
// client without role-management privileges is refused before that.
func orOnDB(req *Request, out []need, act auth.Action) []need {
	if len(out) == 0 {
		out = append(out, need{res: auth.DBResource(req.DB), acts: auth.Actions(act)})
	}
	return out
}

// createRoleNeeds: createRole on the database, grantRole for every role
// and privilege the new role gets.
func createRoleNeeds(req *Request) ([]need, error) {
	out := []need{{res: auth.DBResource(req.DB), acts: auth.Actions(auth.ActCreateRole)}}
	out = append(out, rolesArgNeeds(req, auth.ActGrantRole)...)
	return append(out, privilegesArgNeeds(req, auth.ActGrantRole)...), nil
}

// updateRoleNeeds: revokeRole on every normal resource (what is replaced
// could be anything), grantRole for the roles and privileges given.
func updateRoleNeeds(req *Request) ([]need, error) {
	out := []need{{res: auth.AnyNormalResource, acts: auth.Actions(auth.ActRevokeRole)}}
	out = append(out, rolesArgNeeds(req, auth.ActGrantRole)...)
	return append(out, privilegesArgNeeds(req, auth.ActGrantRole)...), nil
}

// rolePrivilegesNeeds: grantRole (revokeRole) for every privilege given.
func rolePrivilegesNeeds(act auth.Action) func(req *Request) ([]need, error) {
	return func(req *Request) ([]need, error) {
		return orOnDB(req, privilegesArgNeeds(req, act), act), nil
	}
}

// roleRolesNeeds: grantRole (revokeRole) for every role given.
func roleRolesNeeds(act auth.Action) func(req *Request) ([]need, error) {
	return func(req *Request) ([]need, error) {
		return orOnDB(req, rolesArgNeeds(req, act), act), nil
	}
}

// rolesInfoNeeds: viewRole on the database for rolesInfo: 1; for named
// roles viewRole on each role's database, unless the user holds it.
func rolesInfoNeeds(req *Request) ([]need, error) {
	view := auth.Actions(auth.ActViewRole)
	all, names, err := parseRolesInfoArg(req.Cmd.Lookup(req.Name), req.DB)
	if err != nil || all {
		return []need{{res: auth.DBResource(req.DB), acts: view}}, nil
	}
	out := make([]need, len(names))
	for i := range names {
		out[i] = need{res: auth.DBResource(names[i].DB), acts: view, heldRole: &names[i]}
	}
	return out, nil
}

// localhostGrants are the privileges of an unauthenticated loopback
// client while no user exists (mongod's localhost exception): enough to
// create the first user in admin.
var localhostGrants = &auth.Grants{Privs: []auth.Privilege{
	{Resource: auth.Pattern{Kind: auth.PatternDB, DB: "admin"}, Actions: auth.Actions(auth.ActCreateUser, auth.ActGrantRole)},
	{Resource: auth.Pattern{Kind: auth.PatternDB, DB: "$external"}, Actions: auth.Actions(auth.ActCreateUser)},
}}

// cursorAuth is what a cursor records under authorization: the user
// that opened it and the privileges the opening command needed.
type cursorAuth struct {
	owner string
	privs []need
}

type cursorAuthKey struct{}

// ownCursor marks c with the user and privileges of the command that
// opens it (dispatch put them in ctx), for getMore and killCursors.
func ownCursor(ctx context.Context, c *cursor.Cursor) {
	if ca, ok := ctx.Value(cursorAuthKey{}).(cursorAuth); ok {
		c.Owner, c.Privileges = ca.owner, ca.privs
	}
}

// authorize checks the request against the connection's privileges when
// the server runs with Auth. Unauthorized is 13 with mongod's messages.
// It returns what a cursor the command opens records.
func (s *Server) authorize(ctx context.Context, req *Request) (cursorAuth, error) {
	rule := req.command().authz
	if !rule.decided() {
		return cursorAuth{}, errs.New(errs.Unauthorized, "command %s has no authorization rule and is refused while authorization is enabled", req.Name)
	}
	if rule.open {
		return cursorAuth{}, nil
	}
	var g *auth.Grants
	if req.conn != nil {
		var err error
		if g, err = req.conn.grants(ctx); err != nil {
			return cursorAuth{}, err
		}
	}
	if g == nil {
		if req.conn.isLoopback() && rule.needs != nil {
			has, err := s.users.HasUsers(ctx)
			if err != nil {
				return cursorAuth{}, err
			}
			if !has {
				if needs, err := rule.needs(req); err == nil && allAllowed(localhostGrants, needs) {
					return cursorAuth{privs: needs}, nil
				}
			}
		}
		return cursorAuth{}, errs.New(errs.Unauthorized, "Command %s requires authentication", req.Name)
	}
	ca := cursorAuth{owner: g.User.ID()}
	switch {
	case rule.authOnly:
		return ca, nil
	case rule.check != nil:
		var err error
		ca.privs, err = rule.check(req, g)
		return ca, err
	}
	needs, err := rule.needs(req)
	if err != nil {
		return cursorAuth{}, err
	}
	ca.privs = needs
	if allAllowed(g, needs) {
		return ca, nil
	}
	if rule.waived != nil && rule.waived(req, g) {
		return ca, nil
	}
	return cursorAuth{}, errs.New(errs.Unauthorized, "not authorized on %s to execute command %s", req.DB, renderCmd(req.Cmd))
}

// connGrants returns the privileges of the connection serving req under
// authorization; nil when authorization is off or nobody authenticated.
func (s *Server) connGrants(ctx context.Context, req *Request) (*auth.Grants, error) {
	if !s.cfg.Auth || req.conn == nil {
		return nil, nil
	}
	return req.conn.grants(ctx)
}

func allAllowed(g *auth.Grants, needs []need) bool {
	for _, n := range needs {
		if n.heldRole != nil && g.HasRole(*n.heldRole) {
			continue
		}
		if n.selfUsers != nil && onlySelf(g, n.selfUsers) {
			continue
		}
		if !g.Allowed(n.res, n.acts) {
			return false
		}
	}
	return true
}

// onlySelf: every user of users is the authenticated one (an empty list
// stands for oneself).
func onlySelf(g *auth.Grants, users []agg.SessionUser) bool {
	for _, u := range users {
		if g.User == nil {
			return false
		}
		if u.User != g.User.Name || u.DB != g.User.DB {
			return false
		}
	}
	return true
}

// asksAboutSelf: usersInfo naming only the authenticated user.
func asksAboutSelf(req *Request, g *auth.Grants) bool {
	v := req.Cmd.Lookup("usersInfo")
	if s, ok := v.StringValueOK(); ok {
		return s == g.User.Name && req.DB == g.User.DB
	}
	if d, ok := v.DocumentOK(); ok {
		u, _ := d.Lookup("user").StringValueOK()
		db, _ := d.Lookup("db").StringValueOK()
		return u == g.User.Name && db == g.User.DB
	}
	return false
}

// renderCmd shows a command in an error as mongod does, without the
// session and cluster-time fields that add nothing.
func renderCmd(cmd bsoncore.Document) string {
	cmd = redactCommand(cmd) // redact.go
	b := bsoncore.NewDocumentBuilder()
	els, _ := cmd.Elements()
	for _, el := range els {
		switch el.Key() {
		case "lsid", "$clusterTime", "documents", "updates", "deletes":
			continue
		}
		b.AppendValue(el.Key(), el.Value())
	}
	return b.Build().String()
}

// viewDefCheck is the rule of create and collMod, which define views, as
// mongod's checkAuthForCreate and checkAuthForCollMod: act on the
// namespace and, for a view definition that the user can read (find on
// the view), find on its viewOn and on every namespace its pipeline reads.
// collMod must give viewOn and pipeline together.
func viewDefCheck(act auth.Action) func(req *Request, g *auth.Grants) ([]need, error) {
	base := collNeeds(act)
	return func(req *Request, g *auth.Grants) ([]need, error) {
		needs, _ := base(req)
		if !allAllowed(g, needs) {
			return nil, errs.New(errs.Unauthorized, "not authorized on %s to execute command %s", req.DB, renderCmd(req.Cmd))
		}
		_, errOn := req.Cmd.LookupErr("viewOn")
		_, errPipe := req.Cmd.LookupErr("pipeline")
		if req.Name == "collMod" && (errOn == nil) != (errPipe == nil) {
			return nil, errs.New(errs.InvalidOptions, "Must specify both 'viewOn' and 'pipeline' when modifying a view and auth is enabled")
		}
		viewOn, ok := req.Cmd.Lookup("viewOn").StringValueOK()
		if !ok || !g.Allowed(auth.CollResource(req.DB, cmdColl(req)), auth.Actions(auth.ActFind)) {
			return needs, nil // a view the user cannot read exposes nothing
		}
		// mongod's checkAuthForCreateOrModifyView: what aggregating the
		// pipeline on viewOn needs, its lite-parse errors first.
		acc, err := agg.PipelineAccess(agg.Namespace{DB: req.DB, Coll: viewOn}, docArray(req.Cmd.Lookup("pipeline")))
		if err != nil {
			return nil, err
		}
		reads, err := accessNeeds(acc)
		if err != nil {
			return nil, err
		}
		if !allAllowed(g, reads) {
			return nil, errs.New(errs.Unauthorized, "not authorized on %s to execute command %s", req.DB, renderCmd(req.Cmd))
		}
		return needs, nil
	}
}
