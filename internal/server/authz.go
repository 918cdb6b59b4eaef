package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

// need is one privilege a command requires: actions on a resource.
type need struct {
	res  auth.Resource
	acts auth.ActionSet
}

// authzRule returns what a command needs. open means any client may run
// it, authenticated or not; authOnly means any authenticated user may.
type authzRule struct {
	open     bool
	authOnly bool
	needs    func(req *Request) ([]need, error)
}

// authzRules maps every command to its requirements. A command with no
// entry is refused when authorization is on, so a new command cannot be
// served unchecked (TestEveryCommandHasAnAuthzRule).
var authzRules = map[string]authzRule{}

func openCmd(names ...string) {
	for _, n := range names {
		authzRules[n] = authzRule{open: true}
	}
}

func authOnlyCmd(names ...string) {
	for _, n := range names {
		authzRules[n] = authzRule{authOnly: true}
	}
}

func ruled(f func(req *Request) ([]need, error), names ...string) {
	for _, n := range names {
		authzRules[n] = authzRule{needs: f}
	}
}

// collNeeds: actions on the collection the command names first.
func collNeeds(acts ...auth.Action) func(req *Request) ([]need, error) {
	set := auth.Actions(acts...)
	return func(req *Request) ([]need, error) {
		return []need{{auth.CollResource(req.DB, cmdColl(req)), set}}, nil
	}
}

// dbNeeds: actions on the command's database.
func dbNeeds(acts ...auth.Action) func(req *Request) ([]need, error) {
	set := auth.Actions(acts...)
	return func(req *Request) ([]need, error) { return []need{{auth.DBResource(req.DB), set}}, nil }
}

// clusterNeeds: actions on the cluster.
func clusterNeeds(acts ...auth.Action) func(req *Request) ([]need, error) {
	set := auth.Actions(acts...)
	return func(*Request) ([]need, error) { return []need{{auth.ClusterResource, set}}, nil }
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

func init() {
	openCmd("hello", "isMaster", "ismaster", "buildInfo", "buildinfo", "ping", "saslStart", "saslContinue",
		"logout", "connectionStatus", "whatsmyuri", "endSessions")
	authOnlyCmd("startSession", "refreshSessions", "killSessions", "commitTransaction", "abortTransaction",
		"getMore", "listDatabases")
	ruled(collNeeds(auth.ActFind), "find", "count", "distinct")
	ruled(collNeeds(auth.ActInsert), "insert")
	ruled(updateNeeds, "update")
	ruled(collNeeds(auth.ActRemove), "delete")
	ruled(findAndModifyNeeds, "findAndModify", "findandmodify")
	ruled(aggregateNeeds, "aggregate")
	ruled(collNeeds(auth.ActCreateCollection), "create")
	ruled(collNeeds(auth.ActCreateIndex), "createIndexes")
	ruled(collNeeds(auth.ActDropCollection), "drop")
	ruled(collNeeds(auth.ActDropIndex), "dropIndexes", "deleteIndexes")
	ruled(collNeeds(auth.ActListIndexes), "listIndexes")
	ruled(collNeeds(auth.ActCollMod), "collMod")
	ruled(collNeeds(auth.ActCollStats), "collStats", "collstats")
	ruled(collNeeds(auth.ActValidate), "validate")
	ruled(killCursorsNeeds, "killCursors")
	ruled(dbNeeds(auth.ActListCollections), "listCollections")
	ruled(dbNeeds(auth.ActDBStats), "dbStats", "dbstats")
	ruled(dbNeeds(auth.ActDropDatabase), "dropDatabase")
	ruled(renameNeeds, "renameCollection")
	ruled(explainNeeds, "explain")
	ruled(clusterNeeds(auth.ActServerStatus), "serverStatus")
	ruled(clusterNeeds(auth.ActReplSetGetStatus), "replSetGetStatus")
	ruled(clusterNeeds(auth.ActReplSetGetConfig), "replSetGetConfig")
	ruled(clusterNeeds(auth.ActReplSetResizeOplog), "replSetResizeOplog")
	ruled(applyOpsNeeds, "applyOps") // cmd_applyops.go
	ruled(clusterNeeds(auth.ActInprog), "currentOp")
	ruled(clusterNeeds(auth.ActKillop), "killOp")
	ruled(clusterNeeds(auth.ActHostInfo), "hostInfo")
	ruled(clusterNeeds(auth.ActGetCmdLineOpts), "getCmdLineOpts")
	ruled(clusterNeeds(auth.ActGetLog), "getLog")
	ruled(clusterNeeds(auth.ActGetParameter), "getParameter")
	ruled(clusterNeeds(auth.ActSetParameter), "setParameter")
	ruled(clusterNeeds(auth.ActGetDefaultRWConcern), "getDefaultRWConcern")
	ruled(clusterNeeds(auth.ActSetDefaultRWConcern), "setDefaultRWConcern")
	ruled(clusterNeeds(auth.ActFsync), "fsync")
	ruled(clusterNeeds(auth.ActKillAnySession), "killAllSessions")
	ruled(createUserNeeds, "createUser")
	ruled(dbNeeds(auth.ActDropUser), "dropUser", "dropAllUsersFromDatabase")
	ruled(usersInfoNeeds, "usersInfo")
	ruled(grantRolesNeeds(auth.ActGrantRole), "grantRolesToUser")
	ruled(grantRolesNeeds(auth.ActRevokeRole), "revokeRolesFromUser")
}

// updateNeeds: update, plus insert when a statement upserts.
func updateNeeds(req *Request) ([]need, error) {
	acts := auth.Actions(auth.ActUpdate)
	if v, err := req.Cmd.LookupErr("updates"); err == nil {
		if arr, ok := v.ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, u := range vals {
				if d, ok := u.DocumentOK(); ok && d.Lookup("upsert").Equal(bsoncore.Value{Type: bsoncore.TypeBoolean, Data: []byte{1}}) {
					acts.Add(auth.ActInsert)
				}
			}
		}
	}
	return []need{{auth.CollResource(req.DB, cmdColl(req)), acts}}, nil
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
	return []need{{auth.CollResource(req.DB, cmdColl(req)), acts}}, nil
}

// aggregateNeeds: find on the collection, and what the pipeline's stages
// touch: $lookup, $graphLookup and $unionWith read their collections,
// $out and $merge write theirs, $collStats, $indexStats and $currentOp
// need their own actions.
func aggregateNeeds(req *Request) ([]need, error) {
	var out []need
	coll := cmdColl(req)
	if coll != "" {
		out = append(out, need{auth.CollResource(req.DB, coll), auth.Actions(auth.ActFind)})
	}
	if v, err := req.Cmd.LookupErr("pipeline"); err == nil {
		out = pipelineNeeds(req.DB, v, out, coll == "")
	}
	return out, nil
}

func pipelineNeeds(db string, v bsoncore.Value, out []need, collectionless bool) []need {
	arr, ok := v.ArrayOK()
	if !ok {
		return out
	}
	stages, _ := arr.Values()
	for i, st := range stages {
		sd, ok := st.DocumentOK()
		if !ok {
			continue
		}
		el, err := sd.IndexErr(0)
		if err != nil {
			continue
		}
		arg := el.Value()
		switch el.Key() {
		case "$lookup", "$graphLookup", "$unionWith":
			from := ""
			if s, ok := arg.StringValueOK(); ok {
				from = s
			} else if d, ok := arg.DocumentOK(); ok {
				if s, ok := d.Lookup("from").StringValueOK(); ok {
					from = s
				} else if s, ok := d.Lookup("coll").StringValueOK(); ok {
					from = s
				}
				if p, err := d.LookupErr("pipeline"); err == nil {
					out = pipelineNeeds(db, p, out, false)
				}
			}
			if from != "" {
				out = append(out, need{auth.CollResource(db, from), auth.Actions(auth.ActFind)})
			}
		case "$facet":
			if d, ok := arg.DocumentOK(); ok {
				els, _ := d.Elements()
				for _, f := range els {
					out = pipelineNeeds(db, f.Value(), out, false)
				}
			}
		case "$out", "$merge":
			tdb, tcoll := db, ""
			if s, ok := arg.StringValueOK(); ok {
				tcoll = s
			} else if d, ok := arg.DocumentOK(); ok {
				into := d.Lookup("into")
				if el.Key() == "$out" {
					into = d.Lookup("coll")
					if s, ok := d.Lookup("db").StringValueOK(); ok {
						tdb = s
					}
				}
				if s, ok := into.StringValueOK(); ok {
					tcoll = s
				} else if id, ok := into.DocumentOK(); ok {
					tdb, _ = id.Lookup("db").StringValueOK()
					tcoll, _ = id.Lookup("coll").StringValueOK()
				}
			}
			acts := auth.Actions(auth.ActInsert, auth.ActRemove)
			if el.Key() == "$merge" {
				acts = auth.Actions(auth.ActInsert, auth.ActUpdate)
			}
			out = append(out, need{auth.CollResource(tdb, tcoll), acts})
		case "$currentOp":
			out = append(out, need{auth.ClusterResource, auth.Actions(auth.ActInprog)})
		case "$collStats":
			// on the aggregated collection, already named by find
		case "$indexStats":
			// indexStats on the collection
		}
		_ = i
	}
	_ = collectionless
	return out
}

// killCursorsNeeds: killCursors on the namespace.
func killCursorsNeeds(req *Request) ([]need, error) {
	return []need{{auth.CollResource(req.DB, cmdColl(req)), auth.Actions(auth.ActKillCursors)}}, nil
}

// renameNeeds follows mongod: within a database renameCollectionSameDB
// on it; across databases, reading and dropping the source and creating
// and writing the target.
func renameNeeds(req *Request) ([]need, error) {
	from, _ := req.Cmd.Lookup("renameCollection").StringValueOK()
	to, _ := req.Cmd.Lookup("to").StringValueOK()
	fdb, fcoll, _ := strings.Cut(from, ".")
	tdb, tcoll, _ := strings.Cut(to, ".")
	if fdb == tdb {
		return []need{
			{auth.DBResource(fdb), auth.Actions(auth.ActRenameCollectionSameDB)},
		}, nil
	}
	return []need{
		{auth.CollResource(fdb, fcoll), auth.Actions(auth.ActFind, auth.ActDropCollection)},
		{auth.CollResource(tdb, tcoll), auth.Actions(auth.ActInsert, auth.ActCreateIndex, auth.ActCreateCollection)},
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
	rule, ok := authzRules[el.Key()]
	if !ok || rule.needs == nil || el.Key() == "explain" {
		return nil, errs.New(errs.Unauthorized, "not authorized to explain command %s", el.Key())
	}
	return rule.needs(&Request{Name: el.Key(), DB: req.DB, Cmd: inner})
}

// createUserNeeds: createUser on the database, and grantRole on the
// database of every role given.
func createUserNeeds(req *Request) ([]need, error) {
	out := []need{{auth.DBResource(req.DB), auth.Actions(auth.ActCreateUser)}}
	rs, err := auth.ParseRoles(req.Cmd.Lookup("roles"), req.DB)
	if err != nil {
		return out, nil
	}
	for _, r := range rs {
		out = append(out, need{auth.DBResource(r.DB), auth.Actions(auth.ActGrantRole)})
	}
	return out, nil
}

// grantRolesNeeds: grantRole or revokeRole on each role's database.
func grantRolesNeeds(act auth.Action) func(req *Request) ([]need, error) {
	return func(req *Request) ([]need, error) {
		rs, _ := auth.ParseRoles(req.Cmd.Lookup("roles"), req.DB)
		out := []need{{auth.DBResource(req.DB), auth.Actions(act)}}
		for _, r := range rs {
			out = append(out, need{auth.DBResource(r.DB), auth.Actions(act)})
		}
		return out, nil
	}
}

// usersInfoNeeds: viewUser on the database, except for a user asking
// about itself (checked in authorize).
func usersInfoNeeds(req *Request) ([]need, error) {
	return []need{{auth.DBResource(req.DB), auth.Actions(auth.ActViewUser)}}, nil
}

// localhostGrants are the privileges of an unauthenticated loopback
// client while no user exists (mongod's localhost exception): enough to
// create the first user in admin.
var localhostGrants = &auth.Grants{Privs: []auth.Privilege{
	{Resource: auth.Pattern{Kind: auth.PatternDB, DB: "admin"}, Actions: auth.Actions(auth.ActCreateUser, auth.ActGrantRole)},
	{Resource: auth.Pattern{Kind: auth.PatternDB, DB: "$external"}, Actions: auth.Actions(auth.ActCreateUser)},
}}

// authorize checks the request against the connection's privileges when
// the server runs with Auth. Unauthorized is 13 with mongod's messages.
func (s *Server) authorize(ctx context.Context, req *Request) error {
	rule, ok := authzRules[req.Name]
	if !ok {
		return errs.New(errs.Unauthorized, "command %s has no authorization rule and is refused while authorization is enabled", req.Name)
	}
	if rule.open {
		return nil
	}
	var g *auth.Grants
	if req.conn != nil {
		var err error
		if g, err = req.conn.grants(ctx); err != nil {
			return err
		}
	}
	if g == nil {
		if req.conn.isLoopback() && rule.needs != nil {
			has, err := s.users.HasUsers(ctx)
			if err != nil {
				return err
			}
			if !has {
				if needs, err := rule.needs(req); err == nil && allAllowed(localhostGrants, needs) {
					return nil
				}
			}
		}
		return errs.New(errs.Unauthorized, "Command %s requires authentication", req.Name)
	}
	if rule.authOnly {
		return nil
	}
	needs, err := rule.needs(req)
	if err != nil {
		return err
	}
	if allAllowed(g, needs) {
		return nil
	}
	if req.Name == "usersInfo" && asksAboutSelf(req, g) {
		return nil
	}
	return errs.New(errs.Unauthorized, "not authorized on %s to execute command %s", req.DB, renderCmd(req.Cmd))
}

func allAllowed(g *auth.Grants, needs []need) bool {
	for _, n := range needs {
		if !g.Allowed(n.res, n.acts) {
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
