package lode

import (
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/storage"
)

type config struct {
	addr         string
	inProcess    bool
	authUser     string
	authPwd      string
	logger       *slog.Logger
	syncInterval time.Duration
	clientOpts   []*options.ClientOptions
	oplogBytes   int64   // engine.Options.OplogBytes: 0 default, -1 none
	oplogMB      int64   // WithOplogSizeMB's argument, checked by Open
	cacheGB      float64 // WithCacheSizeGB's argument, checked by Open
	testCommands bool
	params       [][2]string // WithSetParameter's, in order
	slowOp       time.Duration
	slowOpSet    bool
	fs           storage.FS // the storage engine's filesystem; tests inject I/O errors (zero: the OS's)
}

// Option configures Open.
type Option func(*config)

// WithAddr sets the listen address; the default "127.0.0.1:0" picks a
// free loopback port.
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithLogger sets the logger; the default writes warnings and errors to
// stderr and discards the rest.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithSyncInterval sets how often the write-ahead log is synced (default
// 100 ms, like MongoDB's journal commit interval).
func WithSyncInterval(d time.Duration) Option { return func(c *config) { c.syncInterval = d } }

// WithClientOptions adds options to the returned driver client.
func WithClientOptions(o *options.ClientOptions) Option {
	return func(c *config) { c.clientOpts = append(c.clientOpts, o) }
}

// InProcess connects the returned client to the engine through in-memory
// connections, using the driver's dialer option, instead of a TCP port:
// nothing listens on the network, no other program can connect, and URI
// returns "". WithAddr is then not allowed.
func InProcess() Option { return func(c *config) { c.inProcess = true } }

// WithAuth turns on authentication and authorization, as lode serve
// --auth does, and connects the returned client as user (on the admin
// database) with password. If the data directory has no user yet, the
// user is created with the root role, as the first user created through
// mongod's localhost exception usually is. Other clients must then
// authenticate too.
func WithAuth(user, password string) Option {
	return func(c *config) { c.authUser, c.authPwd = user, password }
}

// WithOplogSizeMB bounds the operation log (local.oplog.rs, which change
// streams read) at mb MiB, as lode serve --oplog-size-mb does; the oldest
// entries are trimmed first, and a resume token older than what is kept
// fails with ChangeStreamHistoryLost (286). The default is 1024 (1 GiB);
// 0 turns the oplog off: writes skip it, and watch() fails as on a
// standalone mongod. A negative size is refused by Open.
func WithOplogSizeMB(mb int64) Option {
	return func(c *config) {
		c.oplogMB = mb
		switch {
		case mb == 0:
			c.oplogBytes = -1
		case mb > 0:
			c.oplogBytes = mb << 20
		}
	}
}

// WithCacheSizeGB sets the storage engine's block cache to gb GiB, as
// lode serve --cache-size-gb and mongod --wiredTigerCacheSizeGB do: the
// decompressed data and index blocks kept in memory. The default is 0.5;
// Open refuses a size outside 0.25 to 10000.
func WithCacheSizeGB(gb float64) Option { return func(c *config) { c.cacheGB = gb } }

// WithTestCommands enables MongoDB's test commands, as lode serve
// --enable-test-commands and mongod --setParameter enableTestCommands=1
// do: configureFailPoint with the failCommand failpoint, which makes
// chosen commands fail, block, close the connection or report a
// writeConcernError, to test a driver's or an application's retry and
// timeout handling. Without it configureFailPoint is CommandNotFound.
// Never enable it in production: any authenticated client can then make
// the server fail commands.
func WithTestCommands() Option { return func(c *config) { c.testCommands = true } }

// WithSlowOpThreshold sets mongod's slowms, as lode serve --slowms does:
// a command taking longer is logged as "Slow query" (at info level, with
// mongod's attributes) and, at profiling level 1, written to its
// database's system.profile. The default is 100 ms; 0 logs every command.
// The profile command changes it at runtime.
func WithSlowOpThreshold(d time.Duration) Option {
	return func(c *config) { c.slowOp, c.slowOpSet = d, true }
}

// WithSetParameter sets a startup parameter, as lode serve
// --set-parameter name=value and mongod --setParameter do:
// enableTestCommands (1 or 0), logicalSessionRefreshMillis (how often the
// session cache is flushed to config.system.sessions, default 300000)
// and localLogicalSessionTimeoutMinutes (how long an idle session lives,
// default 30). Open fails on any other name or a bad value.
func WithSetParameter(name, value string) Option {
	return func(c *config) { c.params = append(c.params, [2]string{name, value}) }
}
