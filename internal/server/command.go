package server

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// A command is described once, beside its handler in its cmd_*.go file:
// its names, its handler and every trait the rest of the server asks
// about it (authorization, Stable API membership, session and
// transaction behaviour, read and write concerns, explain, how it is
// observed). The dispatcher looks the descriptor up once per request
// and the other files read it from the Request; no table of command
// names holds a trait elsewhere. Code that differs per command is a
// hook or a form the descriptor names: how explain parses it and what
// it runs as on a view (explainer), the fields its query shape keeps
// (shapeForm), aggregate's pipeline checks.
//
// Every trait a command could silently get wrong has an "undecided"
// zero value, which TestEveryCommandDecidesEveryTrait refuses: a new
// command must say no as well as yes. The rare traits that default to
// off (apiStrict-unstable fields, sensitive fields, test-only, served
// after an engine failure, sameAs) are plain fields.

// yesNo is a trait a command must decide; its zero value is undecided.
type yesNo uint8

const (
	undecided yesNo = iota
	no
	yes
)

// apiLevel is a command's place in the Stable API (apiversion.go).
type apiLevel uint8

const (
	apiUndecided    apiLevel = iota
	apiNotV1                 // outside API Version 1: refused with apiStrict
	apiV1                    // in API Version 1
	apiV1Deprecated          // in API Version 1, deprecated: refused with apiDeprecationErrors
)

// opKind is what mongod files a command under: the serverStatus
// opcounter it bumps (stats.go) and the op field of currentOp
// (currentop.go) and of the profiler (profiler.go).
type opKind uint8

const (
	opUndecided opKind = iota
	opCommand          // opcounters.command, op "command"
	opQuery            // find: opcounters.query, op "query"
	opGetMore          // opcounters.getmore, op "getmore"
	opInsert           // counted per document by the handler, op "insert"
	opUpdate           // counted per document by the handler, op "update"
	opRemove           // delete: counted per document by the handler, op "remove"
)

// String is the op field mongod shows for the kind.
func (k opKind) String() string {
	switch k {
	case opQuery:
		return "query"
	case opGetMore:
		return "getmore"
	case opInsert:
		return "insert"
	case opUpdate:
		return "update"
	case opRemove:
		return "remove"
	}
	return "command"
}

// obsFlags say how the slow log, the profiler and the query statistics
// show a command (obs.go).
type obsFlags uint8

const (
	// onColl: its namespace is db.<first field> (else db.$cmd).
	onColl obsFlags = 1 << iota
	// cursorReply: the slow log and the profiler report its cursor
	// (cursorid, cursorExhausted).
	cursorReply
	// modifyReply: its reply's lastErrorObject gives the write counts
	// the slow log and the profiler show (findAndModify); an insert,
	// update or delete's are read as its op kind says (obs.go).
	modifyReply
)

// observation is how a command is observed; undecided while op is.
type observation struct {
	op    opKind
	flags obsFlags
}

// observed is an observation of kind op with flags.
func observed(op opKind, flags ...obsFlags) observation {
	o := observation{op: op}
	for _, f := range flags {
		o.flags |= f
	}
	return o
}

func (o observation) has(f obsFlags) bool { return o.flags&f != 0 }

// command describes one command.
type command struct {
	// names are the command's names: the first is its own, the others
	// aliases (findAndModify and findandmodify).
	names   []string
	handler handler
	// authz is what it needs when authorization is on (authz.go).
	authz authzRule
	// api is its Stable API membership (apiversion.go).
	api apiLevel
	// inTxn: allowed in a multi-document transaction (session_run.go).
	inTxn yesNo
	// retryable: a txnNumber outside a transaction makes it a retryable
	// write (session_run.go, session_retry.go); retry, which a retryable
	// write must set and no other command sets, is how its statements are
	// recorded and a retry answered from the record (session_retryform.go).
	retryable yesNo
	retry     *retryForm
	// snapshotRead: takes readConcern "snapshot" outside a transaction
	// (readconcern.go).
	snapshotRead yesNo
	// writeConcern: takes a write concern, as mongod's
	// supportsWriteConcern (failpoint.go); aggregate decides per
	// pipeline.
	writeConcern yesNo
	// ownWriteConcern: the handler reads its write concern and waits for
	// it itself, per statement once the writer lock is released (insert,
	// update, delete, findAndModify; commitTransaction and
	// abortTransaction in runInTxn). Any other command that takes one
	// has it waited for after it ran (writeconcern.go, afterCommand).
	ownWriteConcern bool
	// explain is how the explain command explains it (cmd_explain.go);
	// notExplained for a command it refuses.
	explain *explainer
	// applyOps: an applyOps command entry may carry it (cmd_applyops.go).
	applyOps yesNo
	// observe is how currentOp, serverStatus, the slow log, the profiler
	// and the query statistics see it.
	observe observation

	// shape, when set, is the form of its query shape: its statements
	// are counted per query shape under its first name (querystats.go,
	// queryshape_cmd.go).
	shape *shapeForm
	// stmts is the array field holding a write's statements (insert's
	// documents, update's updates, delete's deletes): a retried write
	// numbers them (session_retry.go), the query statistics shape each
	// one.
	stmts string
	// releasesStmts: the handler may say, through Request.releaseStmts,
	// that it left no reference to its statements (the engine copied
	// them), and the connection then reuses the message's memory for the
	// next (wire.Msg.Recycle; conn.go).
	releasesStmts bool
	// apiUnstable are the fields its IDL marks unstable or internal,
	// which mongod's parser refuses with apiStrict: true (apiversion.go);
	// Lode checks them on the commands that declare them.
	apiUnstable map[string]bool
	// apiStrictArgs, when set, checks the rest of its arguments under
	// apiStrict: true (aggregate's pipeline stages).
	apiStrictArgs func(req *Request) error
	// writeConcernWhen, for a command whose writeConcern is no, tells
	// the requests that take one all the same (aggregate writing with
	// $out or $merge).
	writeConcernWhen func(req *Request) bool
	// sensitive are the top-level fields never echoed (redact.go).
	sensitive []string
	// testOnly: served only with Config.TestCommands, as mongod serves
	// its test commands only with enableTestCommands.
	testOnly bool
	// servedWhenFailed: still runs once the storage engine has failed
	// (the handshake, and endSessions which a disconnecting client sends).
	servedWhenFailed bool
	// sameAs names the command this one is another form of, with traits
	// of its own (isMaster of hello): a failCommand failpoint naming one
	// matches both.
	sameAs string
	// onCursor: it works on a cursor an earlier command opened, and so
	// reads that command's snapshot, whatever its own readConcern says
	// (readconcern.go).
	onCursor bool
	// ofSessions: it ends or kills sessions, so it runs without checking
	// out the session its lsid names (session_run.go).
	ofSessions bool
	// creates: it creates a collection or an index, which a transaction
	// allows only at readConcern local (session_run.go).
	creates bool
	// outlivesClient: its work goes on when its client disconnects (an
	// index build, conn.go).
	outlivesClient bool
	// applyOpsEntry, for a command applyOps carries, turns an entry's o
	// (for database db) into the command and the database it runs on
	// (cmd_applyops.go); nil runs o as it is on db.
	applyOpsEntry func(o bsoncore.Document, db string) (bsoncore.Document, string)
	// applyOpsGoneOK: an entry whose collection is already gone
	// (NamespaceNotFound) is applied, as mongod applies a drop.
	applyOpsGoneOK bool
}

// admin is the descriptor of a command outside the CRUD, session and
// Stable API machinery: not in API Version 1, refused in transactions,
// not retryable, no snapshot reads, no write concern, not explainable,
// not in applyOps, observed as a "command" on db.$cmd. Its methods change what differs.
func admin(h handler, authz authzRule, names ...string) command {
	return command{names: names, handler: h, authz: authz, api: apiNotV1,
		inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand)}
}

// inAPIV1 puts the command in API Version 1.
func (c command) inAPIV1() command { c.api = apiV1; return c }

// deprecatedInAPIV1 puts the command in API Version 1, deprecated.
func (c command) deprecatedInAPIV1() command { c.api = apiV1Deprecated; return c }

// takingWriteConcern makes the command take a write concern.
func (c command) takingWriteConcern() command { c.writeConcern = yes; return c }

// redacting declares fields never echoed wherever the command is shown.
func (c command) redacting(fields ...string) command {
	c.sensitive = append(c.sensitive, fields...)
	return c
}

// servedOnFailure keeps the command served once the storage engine
// has failed.
func (c command) servedOnFailure() command { c.servedWhenFailed = true; return c }

// formOf makes the command another form of command name (sameAs).
func (c command) formOf(name string) command { c.sameAs = name; return c }

// inApplyOps lets an applyOps command entry carry the command.
func (c command) inApplyOps() command { c.applyOps = yes; return c }

// endingSessions marks a command that ends or kills sessions
// (ofSessions).
func (c command) endingSessions() command { c.ofSessions = true; return c }

// forTests makes the command a test command.
func (c command) forTests() command { c.testOnly = true; return c }

// commands maps every name of every command to its descriptor; filled
// by the cmd_*.go files' init functions.
var commands = map[string]*command{}

// register adds a command under each of its names.
func register(c command) {
	if len(c.names) == 0 || c.handler == nil {
		panic("server: register: a command needs names and a handler")
	}
	d := &c
	for _, n := range c.names {
		if _, dup := commands[n]; dup {
			panic("server: command " + n + " registered twice")
		}
		commands[n] = d
	}
}

// noCommand is the descriptor of a name no command has: every trait no.
var noCommand = &command{}

// lookupCommand returns the descriptor of the command called name, or
// noCommand.
func lookupCommand(name string) *command {
	if c, ok := commands[name]; ok {
		return c
	}
	return noCommand
}

// command returns the request's command descriptor: the one dispatch
// found, or, for a request built inside a command (explain, applyOps,
// views), the one its name has.
func (r *Request) command() *command {
	if r.cmd == nil {
		r.cmd = lookupCommand(r.Name)
	}
	return r.cmd
}

// has reports whether name is one of c's names.
func (c *command) has(name string) bool {
	for _, n := range c.names {
		if n == name {
			return true
		}
	}
	return false
}

// sameCommand reports whether name is one of the names of command cmd,
// or of the command it is another form of.
func sameCommand(name, cmd string) bool {
	if name == cmd {
		return true
	}
	c := lookupCommand(cmd)
	if c.has(name) {
		return true
	}
	if c.sameAs != "" && lookupCommand(c.sameAs).has(name) {
		return true
	}
	for _, o := range commands {
		if o.sameAs != "" && o.has(name) && c.has(o.sameAs) {
			return true
		}
	}
	return false
}

// undecidedTraits lists the traits c leaves undecided.
func (c *command) undecidedTraits() []string {
	var out []string
	if !c.authz.decided() {
		out = append(out, "authz")
	}
	if c.api == apiUndecided {
		out = append(out, "api")
	}
	for _, t := range []struct {
		name string
		v    yesNo
	}{{"inTxn", c.inTxn}, {"retryable", c.retryable}, {"snapshotRead", c.snapshotRead},
		{"writeConcern", c.writeConcern}, {"applyOps", c.applyOps}} {
		if t.v == undecided {
			out = append(out, t.name)
		}
	}
	if c.retryable == yes && c.retry == nil {
		out = append(out, "retry")
	}
	if c.explain == nil {
		out = append(out, "explain")
	}
	if c.observe.op == opUndecided {
		out = append(out, "observe")
	}
	return out
}
