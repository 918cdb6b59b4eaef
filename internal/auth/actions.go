package auth

import (
	"math/bits"
	"sort"
)

// Action is one of mongod's privilege actions.
type Action uint8

// ActionSet is a set of actions.
type ActionSet [3]uint64

// The privilege actions Lode's commands need, by mongod's names.
const (
	ActAddShard Action = iota
	ActAnyAction
	ActBypassDocumentValidation
	ActChangeCustomData
	ActChangeOwnCustomData
	ActChangeOwnPassword
	ActChangePassword
	ActChangeStream
	ActCollMod
	ActCollStats
	ActCompact
	ActConnPoolStats
	ActConvertToCapped
	ActCreateCollection
	ActCreateIndex
	ActCreateRole
	ActCreateUser
	ActDBHash
	ActDBStats
	ActDropCollection
	ActDropDatabase
	ActDropIndex
	ActDropRole
	ActDropUser
	ActEnableProfiler
	ActFind
	ActFsync
	ActGetCmdLineOpts
	ActGetDefaultRWConcern
	ActGetLog
	ActGetParameter
	ActGrantRole
	ActHostInfo
	ActIndexStats
	ActInprog
	ActInsert
	ActInternal
	ActKillAnyCursor
	ActKillAnySession
	ActKillCursors
	ActKillop
	ActListCollections
	ActListDatabases
	ActListIndexes
	ActListSessions
	ActNetstat
	ActPlanCacheRead
	ActPlanCacheWrite
	ActPlanCacheIndexFilter
	ActReIndex
	ActRemove
	ActRenameCollectionSameDB
	ActReplSetGetConfig
	ActReplSetGetStatus
	ActRevokeRole
	ActServerStatus
	ActSetDefaultRWConcern
	ActSetParameter
	ActShutdown
	ActTop
	ActUpdate
	ActValidate
	ActViewRole
	ActViewUser
	ActUseUUID
	ActListSearchIndexes
	ActCreateSearchIndexes
	ActDropSearchIndex
	ActUpdateSearchIndex
	ActResync
	ActApplicationMessage
	ActCleanupOrphaned
	ActFlushRouterConfig
	ActLogRotate
	ActSetFreeMonitoring
	ActCheckFreeMonitoringStatus
	ActDropConnections
	ActSetAuthenticationRestriction
	ActReplSetResizeOplog
	// ActQueryStatsRead reads the $queryStats stage's statistics.
	ActQueryStatsRead
	// numCoreActions ends the actions Lode's commands check; the rest of
	// mongod's actions follow from otherActionNames.
	numCoreActions
)

// actionNames are the actions' mongod names, by Action: the core ones,
// then otherActionNames.
var actionNames = append(coreActionNames[:], otherActionNames...)

// numActions is how many actions there are in all.
var numActions = Action(len(actionNames))

var coreActionNames = [numCoreActions]string{
	ActAddShard: "addShard", ActAnyAction: "anyAction", ActBypassDocumentValidation: "bypassDocumentValidation",
	ActChangeCustomData: "changeCustomData", ActChangeOwnCustomData: "changeOwnCustomData",
	ActChangeOwnPassword: "changeOwnPassword", ActChangePassword: "changePassword", ActChangeStream: "changeStream",
	ActCollMod: "collMod", ActCollStats: "collStats", ActCompact: "compact", ActConnPoolStats: "connPoolStats",
	ActConvertToCapped: "convertToCapped", ActCreateCollection: "createCollection", ActCreateIndex: "createIndex",
	ActCreateRole: "createRole", ActCreateUser: "createUser", ActDBHash: "dbHash", ActDBStats: "dbStats",
	ActDropCollection: "dropCollection", ActDropDatabase: "dropDatabase", ActDropIndex: "dropIndex",
	ActDropRole: "dropRole", ActDropUser: "dropUser", ActEnableProfiler: "enableProfiler", ActFind: "find",
	ActFsync: "fsync", ActGetCmdLineOpts: "getCmdLineOpts", ActGetDefaultRWConcern: "getDefaultRWConcern",
	ActGetLog: "getLog", ActGetParameter: "getParameter", ActGrantRole: "grantRole", ActHostInfo: "hostInfo",
	ActIndexStats: "indexStats", ActInprog: "inprog", ActInsert: "insert", ActInternal: "internal",
	ActKillAnyCursor: "killAnyCursor", ActKillAnySession: "killAnySession", ActKillCursors: "killCursors",
	ActKillop: "killop", ActListCollections: "listCollections", ActListDatabases: "listDatabases",
	ActListIndexes: "listIndexes", ActListSessions: "listSessions", ActNetstat: "netstat",
	ActPlanCacheRead: "planCacheRead", ActPlanCacheWrite: "planCacheWrite",
	ActPlanCacheIndexFilter: "planCacheIndexFilter", ActReIndex: "reIndex",
	ActRemove: "remove", ActRenameCollectionSameDB: "renameCollectionSameDB",
	ActReplSetGetConfig: "replSetGetConfig", ActReplSetGetStatus: "replSetGetStatus", ActRevokeRole: "revokeRole",
	ActServerStatus: "serverStatus", ActSetDefaultRWConcern: "setDefaultRWConcern", ActSetParameter: "setParameter",
	ActShutdown: "shutdown", ActTop: "top", ActUpdate: "update", ActValidate: "validate", ActViewRole: "viewRole",
	ActViewUser: "viewUser", ActUseUUID: "useUUID", ActListSearchIndexes: "listSearchIndexes",
	ActCreateSearchIndexes: "createSearchIndexes", ActDropSearchIndex: "dropSearchIndex",
	ActUpdateSearchIndex: "updateSearchIndex", ActResync: "resync", ActApplicationMessage: "applicationMessage",
	ActCleanupOrphaned: "cleanupOrphaned", ActFlushRouterConfig: "flushRouterConfig", ActLogRotate: "logRotate",
	ActSetFreeMonitoring: "setFreeMonitoring", ActCheckFreeMonitoringStatus: "checkFreeMonitoringStatus",
	ActDropConnections: "dropConnections", ActSetAuthenticationRestriction: "setAuthenticationRestriction",
	ActReplSetResizeOplog: "replSetResizeOplog", ActQueryStatsRead: "queryStatsRead",
}

// otherActionNames are mongod's remaining privilege actions. No Lode
// command checks them, but a user-defined role may grant them: they
// parse, are stored and shown like mongod's, so roles written for a
// mongod (or restored from one) are accepted as they are.
var otherActionNames = []string{
	"advanceClusterTime", "allCollectionStats", "analyze", "analyzeShardKey", "appendOplogNote",
	"applyOps", "auditConfigure", "auditLogRotate", "authCheck", "authenticate", "authSchemaUpgrade",
	"bypassWriteBlockingMode", "checkMetadataConsistency", "cleanupStructuredEncryptionData",
	"clearJumboFlag", "closeAllDatabases", "compactStructuredEncryptionData", "configureQueryAnalyzer",
	"connPoolSync", "cpuProfiler", "createDatabase", "dbCheck", "dropAllRolesFromDatabase",
	"dropAllUsersFromDatabase", "emptycapped", "enableSharding", "exportCollection", "forceUUID",
	"fsyncUnlock", "getChangeStreamState", "getClusterParameter", "getDatabaseVersion", "getShardMap",
	"getShardVersion", "grantPrivilegesToRole", "grantRolesToRole", "grantRolesToUser", "impersonate",
	"importCollection", "invalidateUserCache", "issueDirectShardOperations", "listCachedAndActiveUsers",
	"listCursors", "listSampledQueries", "listShards", "moveChunk", "moveCollection", "oidcListKeys",
	"oidcRefreshKeys", "oidReset", "operationMetrics", "querySettings",
	"queryStatsReadTransformed", "refineCollectionShardKey", "removeShard",
	"renameCollection", "repairDatabase", "replSetConfigure", "replSetHeartbeat", "replSetReconfig",
	"replSetStateChange", "reshardCollection", "revokePrivilegesFromRole",
	"revokeRolesFromRole", "revokeRolesFromUser", "rotateCertificates", "runAsLessPrivilegedUser",
	"runTenantMigration", "setChangeStreamState", "setClusterParameter", "setFeatureCompatibilityVersion",
	"setUserWriteBlockMode", "shardCollection", "shardedDataDistribution", "shardingState", "splitChunk",
	"splitVector", "storageDetails", "touch", "trafficRecord", "transitionFromDedicatedConfigServer",
	"transitionToDedicatedConfigServer", "unlock", "updateRole", "updateUser", "useTenant",
}

var actionByName = func() map[string]Action {
	m := make(map[string]Action, numActions)
	for a := Action(0); a < numActions; a++ {
		m[actionNames[a]] = a
	}
	return m
}()

// String is the action's mongod name.
func (a Action) String() string { return actionNames[a] }

// ParseAction returns the action named s.
func ParseAction(s string) (Action, bool) {
	a, ok := actionByName[s]
	return a, ok
}

// Actions returns the set of the given actions.
func Actions(as ...Action) ActionSet {
	var s ActionSet
	for _, a := range as {
		s.Add(a)
	}
	return s
}

// Add puts a into s.
func (s *ActionSet) Add(a Action) { s[a>>6] |= 1 << (a & 63) }

// Has reports whether s holds a, or anyAction.
func (s ActionSet) Has(a Action) bool {
	return s[a>>6]&(1<<(a&63)) != 0 || s[ActAnyAction>>6]&(1<<(ActAnyAction&63)) != 0
}

// Contains reports whether every action of o is in s.
func (s ActionSet) Contains(o ActionSet) bool {
	if s.Has(ActAnyAction) {
		return true
	}
	for i := range s {
		if s[i]&o[i] != o[i] {
			return false
		}
	}
	return true
}

// Union returns s ∪ o.
func (s ActionSet) Union(o ActionSet) ActionSet {
	for i := range s {
		s[i] |= o[i]
	}
	return s
}

// Minus returns s without the actions of o.
func (s ActionSet) Minus(o ActionSet) ActionSet {
	for i := range s {
		s[i] &^= o[i]
	}
	return s
}

// Empty reports whether s has no action.
func (s ActionSet) Empty() bool { return s == ActionSet{} }

// Names returns the actions' names, sorted, as mongod lists them.
func (s ActionSet) Names() []string {
	var out []string
	for w := range s {
		for b := s[w]; b != 0; b &= b - 1 {
			a := Action(w*64 + bits.TrailingZeros64(b))
			if a < numActions {
				out = append(out, actionNames[a])
			}
		}
	}
	sort.Strings(out)
	return out
}
