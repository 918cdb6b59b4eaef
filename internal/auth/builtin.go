package auth

// mongod 7.0's built-in roles, as privileges. The action lists follow
// MongoDB's "Built-In Roles" reference, restricted to actions of the
// commands Lode serves plus the ones rolesInfo shows for them.

var (
	readActions = Actions(ActChangeStream, ActCollStats, ActDBHash, ActDBStats, ActFind, ActKillCursors,
		ActListCollections, ActListIndexes, ActListSearchIndexes)
	readWriteActions = readActions.Union(Actions(ActConvertToCapped, ActCreateCollection, ActCreateIndex,
		ActDropCollection, ActDropIndex, ActInsert, ActRemove, ActRenameCollectionSameDB, ActUpdate,
		ActCreateSearchIndexes, ActDropSearchIndex, ActUpdateSearchIndex))
	dbAdminActions = Actions(ActBypassDocumentValidation, ActCollMod, ActCollStats, ActCompact, ActConvertToCapped,
		ActCreateCollection, ActCreateIndex, ActDBStats, ActDropCollection, ActDropDatabase, ActDropIndex,
		ActEnableProfiler, ActListCollections, ActListIndexes, ActPlanCacheRead, ActPlanCacheWrite,
		ActPlanCacheIndexFilter, ActReIndex, ActRenameCollectionSameDB, ActValidate, ActListSearchIndexes)
	// dbAdmin reads and manages system.profile.
	profileActions   = readActions.Union(Actions(ActDropCollection, ActCreateCollection, ActConvertToCapped))
	userAdminActions = Actions(ActChangeCustomData, ActChangePassword, ActCreateRole, ActCreateUser, ActDropRole,
		ActDropUser, ActGrantRole, ActRevokeRole, ActSetAuthenticationRestriction, ActViewRole, ActViewUser)
	clusterMonitorActions = Actions(ActCheckFreeMonitoringStatus, ActConnPoolStats, ActGetCmdLineOpts,
		ActGetDefaultRWConcern, ActGetLog, ActGetParameter, ActHostInfo, ActInprog, ActListDatabases,
		ActListSessions, ActNetstat, ActReplSetGetConfig, ActReplSetGetStatus, ActServerStatus, ActTop, ActUseUUID, ActQueryStatsRead)
	hostManagerActions = Actions(ActApplicationMessage, ActFlushRouterConfig, ActFsync, ActKillAnyCursor,
		ActKillAnySession, ActKillop, ActLogRotate, ActResync, ActSetParameter, ActShutdown, ActDropConnections,
		ActReplSetResizeOplog)
	clusterManagerActions = Actions(ActSetDefaultRWConcern, ActGetDefaultRWConcern, ActCleanupOrphaned,
		ActListSessions, ActSetFreeMonitoring, ActAddShard)
	// backupFind is what backup reads beyond normal collections.
	backupSystemColls = []string{"system.js", "system.users", "system.roles", "system.version", "system.profile", "system.views"}
	restoreActions    = Actions(ActBypassDocumentValidation, ActChangeCustomData, ActChangePassword, ActCollMod,
		ActConvertToCapped, ActCreateCollection, ActCreateIndex, ActCreateRole, ActCreateUser, ActDropCollection,
		ActDropRole, ActDropUser, ActGrantRole, ActInsert, ActRevokeRole, ActViewRole, ActViewUser, ActUpdate,
		ActFind, ActListCollections, ActListIndexes)
)

// builtinDBRoles are valid on every database.
var builtinDBRoles = map[string]func(db string) []Privilege{
	"read": func(db string) []Privilege {
		return []Privilege{{dbPattern(db), readActions}, {collPattern(db, "system.js"), readActions}}
	},
	"readWrite": func(db string) []Privilege {
		return []Privilege{{dbPattern(db), readWriteActions}, {collPattern(db, "system.js"), readWriteActions}}
	},
	"dbAdmin": func(db string) []Privilege {
		return []Privilege{{dbPattern(db), dbAdminActions}, {collPattern(db, "system.profile"), profileActions}}
	},
	"userAdmin": func(db string) []Privilege {
		return []Privilege{{dbPattern(db), userAdminActions}}
	},
	"dbOwner": func(db string) []Privilege {
		return []Privilege{
			{dbPattern(db), readWriteActions.Union(dbAdminActions).Union(userAdminActions)},
			{collPattern(db, "system.js"), readWriteActions},
			{collPattern(db, "system.profile"), profileActions},
		}
	},
}

// builtinAdminRoles exist only on the admin database.
var builtinAdminRoles = map[string]func() []Privilege{
	"readAnyDatabase": func() []Privilege {
		return []Privilege{{anyNormal, readActions}, {collAnyDB("system.js"), readActions}, {cluster, Actions(ActListDatabases)}}
	},
	"readWriteAnyDatabase": func() []Privilege {
		return []Privilege{{anyNormal, readWriteActions}, {collAnyDB("system.js"), readWriteActions}, {cluster, Actions(ActListDatabases)}}
	},
	"userAdminAnyDatabase": func() []Privilege {
		return []Privilege{{anyNormal, userAdminActions}, {cluster, Actions(ActListDatabases, mustAction("authSchemaUpgrade"), mustAction("invalidateUserCache"))},
			{collPattern("admin", "system.users"), readActions}, {collPattern("admin", "system.roles"), readActions}}
	},
	"dbAdminAnyDatabase": func() []Privilege {
		return []Privilege{{anyNormal, dbAdminActions}, {collAnyDB("system.profile"), profileActions}, {cluster, Actions(ActListDatabases)}}
	},
	"clusterMonitor": func() []Privilege {
		return []Privilege{{cluster, clusterMonitorActions},
			{anyNormal, Actions(ActCollStats, ActDBStats, ActIndexStats)},
			{collPattern("local", "oplog.rs"), Actions(ActFind, ActCollStats)}}
	},
	"hostManager": func() []Privilege {
		return []Privilege{{cluster, hostManagerActions}, {anyNormal, Actions(ActKillCursors)}}
	},
	"clusterManager": func() []Privilege {
		return []Privilege{{cluster, clusterManagerActions}}
	},
	"clusterAdmin": func() []Privilege {
		return []Privilege{
			{cluster, clusterMonitorActions.Union(hostManagerActions).Union(clusterManagerActions)},
			{anyNormal, Actions(ActCollStats, ActDBStats, ActIndexStats, ActKillCursors, ActDropDatabase)},
			{collPattern("local", "oplog.rs"), Actions(ActFind, ActCollStats)},
		}
	},
	"backup": func() []Privilege {
		ps := []Privilege{
			{cluster, Actions(ActGetParameter, ActListDatabases, ActServerStatus, ActListSessions)},
			{anyNormal, Actions(ActCollStats, ActDBHash, ActDBStats, ActFind, ActKillCursors, ActListCollections, ActListIndexes)},
		}
		for _, c := range backupSystemColls {
			ps = append(ps, Privilege{collAnyDB(c), Actions(ActFind, ActCollStats, ActListIndexes, ActDBHash)})
		}
		return ps
	},
	"restore": func() []Privilege {
		ps := []Privilege{
			{cluster, Actions(ActGetParameter, ActListDatabases)},
			{anyNormal, restoreActions},
		}
		for _, c := range backupSystemColls {
			ps = append(ps, Privilege{collAnyDB(c), restoreActions.Union(Actions(ActRemove))})
		}
		return ps
	},
}

// root is every other admin role's privileges, plus validate anywhere;
// it is added in init because it reads the table it belongs to.
func init() {
	builtinAdminRoles["root"] = func() []Privilege {
		var ps []Privilege
		for _, r := range []string{"readWriteAnyDatabase", "dbAdminAnyDatabase", "userAdminAnyDatabase", "clusterAdmin", "restore", "backup"} {
			ps = append(ps, builtinAdminRoles[r]()...)
		}
		return append(ps, Privilege{Pattern{Kind: PatternAnyResource}, Actions(ActValidate)})
	}
}

var (
	cluster   = Pattern{Kind: PatternCluster}
	anyNormal = Pattern{Kind: PatternAnyNormal}
)

func dbPattern(db string) Pattern { return Pattern{Kind: PatternDB, DB: db} }
func collPattern(db, coll string) Pattern {
	return Pattern{Kind: PatternCollection, DB: db, Coll: coll}
}
func collAnyDB(coll string) Pattern { return Pattern{Kind: PatternCollAnyDB, Coll: coll} }

// mustAction is the action named n, for built-in roles' actions that no
// Lode command checks (no constant of their own).
func mustAction(n string) Action {
	a, ok := ParseAction(n)
	if !ok {
		panic("auth: unknown action " + n)
	}
	return a
}

// IsBuiltinRole reports whether role@db names a built-in role.
func IsBuiltinRole(role, db string) bool {
	if _, ok := builtinDBRoles[role]; ok {
		return true
	}
	_, ok := builtinAdminRoles[role]
	return ok && db == "admin"
}

// BuiltinPrivileges returns a built-in role's privileges, one per
// resource pattern as mongod shows them.
func BuiltinPrivileges(role, db string) ([]Privilege, bool) {
	if f, ok := builtinDBRoles[role]; ok {
		return MergePrivileges(nil, f(db)), true
	}
	if f, ok := builtinAdminRoles[role]; ok && db == "admin" {
		return MergePrivileges(nil, f()), true
	}
	return nil, false
}

// BuiltinRoleNames lists the built-in roles of db, for rolesInfo with
// showBuiltinRoles.
func BuiltinRoleNames(db string) []string {
	out := []string{"dbAdmin", "dbOwner", "read", "readWrite", "userAdmin"}
	if db == "admin" {
		out = append(out, "backup", "clusterAdmin", "clusterManager", "clusterMonitor", "dbAdminAnyDatabase",
			"hostManager", "readAnyDatabase", "readWriteAnyDatabase", "restore", "root", "userAdminAnyDatabase")
	}
	return out
}
