// Package server accepts MongoDB wire-protocol connections and dispatches
// their commands to the engine. Each command handler lives in its own
// cmd_*.go file and is thin: it parses arguments, calls the engine and
// shapes the reply as MongoDB 7.0 does.
package server

import (
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/mongolog"
)

// Config configures a Server.
type Config struct {
	// Logger receives server logs; nil means slog.Default().
	Logger *slog.Logger
	// CursorTimeout closes idle cursors; zero means 10 minutes.
	CursorTimeout time.Duration
	// CmdLine is reported by getCmdLineOpts.
	CmdLine []string
	// CmdLineParsed is getCmdLineOpts' parsed: the options set, under
	// mongod's configuration file names (nil: an empty document).
	CmdLineParsed bsoncore.Document
	// Standalone turns off the replica-set identity (and with it
	// retryable writes and transactions), like a mongod without --replSet.
	Standalone bool
	// ReplSetName is the replica set's name; empty means "lode".
	ReplSetName string
	// AdvertiseAddr is the host:port reported in hello's hosts and me;
	// empty means the address the client connected to.
	AdvertiseAddr string
	// MaxConnections caps the open client connections (mongod's
	// net.maxIncomingConnections); a connection beyond it is closed at
	// once. Zero means mongod's default: 1,000,000, or 80% of the soft
	// open-file limit when that is lower.
	MaxConnections int
	// MessageTimeout bounds how long a request may take to arrive once its
	// first byte has: a client that stalls mid-message is disconnected.
	// Idle connections between messages are never timed out. Zero means
	// DefaultMessageTimeout; negative disables the deadline.
	MessageTimeout time.Duration
	// TLSMode is mongod's net.tls.mode; the zero value is TLSDisabled.
	// Any other mode needs TLS.
	TLSMode TLSMode
	// TLS holds the server's certificate and, when client certificates
	// are checked, the CAs that sign them (LoadTLSConfig makes it). It is
	// used only when TLSMode is not TLSDisabled.
	TLS *tls.Config
	// Auth requires clients to authenticate (SCRAM) and checks every
	// command against the user's privileges, like mongod --auth. Users
	// and roles can be managed with auth off too.
	Auth bool
	// TestCommands enables mongod's test commands (configureFailPoint and
	// its failCommand failpoint), like mongod --setParameter
	// enableTestCommands=1. Off, they are CommandNotFound.
	TestCommands bool
	// SessionRefresh is how often the session cache is flushed to
	// config.system.sessions (mongod's logicalSessionRefreshMillis);
	// zero means 5 minutes.
	SessionRefresh time.Duration
	// SessionTimeoutMinutes is how long an idle logical session lives
	// (mongod's localLogicalSessionTimeoutMinutes, the TTL of
	// config.system.sessions and hello's logicalSessionTimeoutMinutes);
	// zero means 30.
	SessionTimeoutMinutes int
	// SlowOpThreshold is mongod's slowms: a command taking longer is
	// logged ("Slow query") and, at profiling level 1, profiled. Zero
	// means DefaultSlowOpThreshold (100 ms); negative means 0 (every
	// command). The profile command changes it at runtime.
	SlowOpThreshold time.Duration
	// SlowOpSampleRate is mongod's slowOpSampleRate: the fraction of slow
	// commands logged and profiled, in (0, 1]; zero means 1.
	SlowOpSampleRate float64
	// QueryStatsCacheSize bounds the query shapes $queryStats keeps (the
	// least recently seen are evicted); zero means
	// DefaultQueryStatsCacheSize, negative turns query statistics off.
	QueryStatsCacheSize int
	// Shutdown, when set, is what the shutdown command (mongosh's
	// db.shutdownServer()) does once it is allowed: the program stops
	// the server and the engine and exits, as lode serve does. It must
	// not block: it is called from the command's own connection, which
	// the shutdown closes. Nil (a server embedded with lode.Open) refuses
	// the command: the embedding program stops Lode with DB.Close.
	Shutdown func(force bool, timeoutSecs int64)
	// RotateLog, when set, rotates the server's log file (the logRotate
	// command) and returns the rotated file's new name ("" when the file
	// was reopened in place). Nil means the log goes to a stream (stderr,
	// a program's logger) with no file to rotate, and logRotate succeeds
	// doing nothing, as mongod does without systemLog.path.
	RotateLog func() (string, error)
}

// DefaultMessageTimeout is Config.MessageTimeout's default.
const DefaultMessageTimeout = 30 * time.Second

// maxConnections returns the effective connection cap.
func (s *Server) maxConnections() int64 {
	if s.cfg.MaxConnections > 0 {
		return int64(s.cfg.MaxConnections)
	}
	max := int64(1000000) // mongod's default net.maxIncomingConnections
	if n, ok := maxOpenFiles(); ok && n*8/10 < max {
		max = n * 8 / 10
	}
	return max
}

func (s *Server) messageTimeout() time.Duration {
	switch {
	case s.cfg.MessageTimeout < 0:
		return 0
	case s.cfg.MessageTimeout == 0:
		return DefaultMessageTimeout
	}
	return s.cfg.MessageTimeout
}

// Server serves the MongoDB wire protocol on top of an engine.
type Server struct {
	eng     *engine.Engine
	viewMu  sync.Mutex // serializes view definition changes (views.go)
	log     *slog.Logger
	cfg     Config
	cursors *cursor.Registry
	started time.Time
	host    string
	users   *auth.Store // users and roles (authn.go)

	failCommand                 failPoint // the failCommand failpoint (failpoint.go)
	onPrimaryTransactionalWrite failPoint // on a retryable write (failpoint.go)
	maxTimeAlwaysTimeOut        failPoint // commands with maxTimeMS time out (failpoint.go)
	// getMores fail after checking out their cursor (failpoint.go)
	failGetMoreAfterCursorCheckout failPoint

	mu      sync.Mutex
	lns     map[net.Listener]struct{}
	conns   map[*conn]struct{}
	closing bool
	wg      sync.WaitGroup
	// stop is closed by Close, to end background goroutines at once.
	stop chan struct{}

	// userWritesBlocked: setUserWriteBlockMode global (cmd_setuserwriteblockmode.go).
	userWritesBlocked atomic.Bool

	nextConnID atomic.Int64
	stats      stats
	logs       *logRing

	inserts     inserts
	paramsOnce  sync.Once
	params      params
	extraParams map[string]param

	sessions sessionRegistry // logical sessions and transactions (session.go)
	opReg    opRegistry      // running commands, for currentOp and killOp (currentop.go)
	rw       rwDefaults      // setDefaultRWConcern's defaults (cmd_setdefaultrwconcern.go)

	// obs decides what is logged as slow, profiled and counted per query
	// shape (obs.go).
	obs *observer

	// The disconnect watchdog (watchdog.go) sleeps with watchIdle set
	// until a command wakes it through watchWake.
	watchIdle atomic.Bool
	watchWake chan struct{}

	// bigSlots admits requests of bigMessage bytes or more, as many at a
	// time as there are cores (conn.go handleMsg).
	bigSlots chan struct{}
}

func (s *Server) cursorTimeout() time.Duration {
	if s.cfg.CursorTimeout > 0 {
		return s.cfg.CursorTimeout
	}
	return cursor.DefaultTimeout
}

// New returns a server for eng. The caller keeps ownership of eng.
func New(eng *engine.Engine, cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	host, _ := os.Hostname()
	s := &Server{
		eng:       eng,
		log:       log,
		cfg:       cfg,
		cursors:   cursor.NewRegistry(cfg.CursorTimeout),
		started:   time.Now(),
		host:      host,
		lns:       make(map[net.Listener]struct{}),
		conns:     make(map[*conn]struct{}),
		logs:      newLogRing(1024),
		bigSlots:  make(chan struct{}, max(runtime.GOMAXPROCS(0), 1)),
		stop:      make(chan struct{}),
		watchWake: make(chan struct{}, 1),
		users:     auth.NewStore(eng),
		obs:       newObserver(cfg),
	}
	eng.SetNamespaceHook(s.namespaceGone)
	s.loadUserWriteBlock() // cmd_setuserwriteblockmode.go
	s.wg.Add(1)
	go s.runSessionRefresher() // sessions_coll.go
	s.loadQueryStats()         // querystats_store.go
	s.wg.Add(1)
	go s.runQueryStatsFlusher()
	s.wg.Add(1)
	go s.runWatchdog() // watchdog.go
	return s
}

// namespaceGone kills the cursors of a dropped or renamed collection with
// mongod's QueryPlanKilled errors; their next getMore reports it.
func (s *Server) namespaceGone(ev engine.NamespaceEvent) {
	u := hex.EncodeToString(ev.UUID[:])
	uuid := u[0:8] + "-" + u[8:12] + "-" + u[12:16] + "-" + u[16:20] + "-" + u[20:]
	ns := ev.DB + "." + ev.Coll
	var err error
	if ev.RenamedTo != "" {
		err = errs.New(errs.QueryPlanKilled, "collection renamed from '%s' to '%s'. UUID %s", ns, ev.RenamedTo, uuid)
	} else {
		err = errs.New(errs.QueryPlanKilled, "collection dropped. UUID %s", uuid)
	}
	if n := s.cursors.KillNamespace(ns, err); n > 0 {
		s.log.Debug("killed cursors of a dropped or renamed collection", "ns", ns, "cursors", n)
	}
}

// Serve accepts connections on ln until the server is closed. It returns
// nil after Close. Each connection's goroutine, not this loop, settles
// TLS by Config.TLSMode before its first message (tls.go negotiate).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errors.New("server: closed")
	}
	if s.cfg.TLSMode != TLSDisabled && s.cfg.TLS == nil {
		s.mu.Unlock()
		return fmt.Errorf("server: TLS mode %s needs a certificate (Config.TLS)", s.cfg.TLSMode)
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	s.log.Info("Waiting for connections", mongolog.KeyComponent, "NETWORK", mongolog.KeyID, mongolog.IDWaitingConnections,
		mongolog.KeyCtx, "listener", "addr", ln.Addr().String())
	s.logs.add(fmt.Sprintf(`{"t":{"$date":%q},"s":"I","c":"NETWORK","msg":"Waiting for connections","attr":{"addr":%q}}`, time.Now().UTC().Format(time.RFC3339Nano), ln.Addr().String()))
	var delay time.Duration
	var lastWarn time.Time
	max := s.maxConnections()
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("server: accept: %w", err)
			}
			// Out of descriptors (EMFILE, ENFILE), an aborted handshake,
			// a timeout: wait and retry, as net/http does, rather than
			// stop serving the connections already open.
			if delay == 0 {
				delay = 5 * time.Millisecond
			} else if delay < time.Second {
				delay = min(2*delay, time.Second)
			}
			if time.Since(lastWarn) > 10*time.Second {
				lastWarn = time.Now()
				s.log.Warn("accept failed; retrying", "err", err, "retry_in", delay)
			}
			time.Sleep(delay)
			continue
		}
		delay = 0
		if cur := s.stats.current.Load(); cur >= max {
			// mongod closes such a connection straight away.
			s.stats.rejected.Add(1)
			if time.Since(lastWarn) > 10*time.Second {
				lastWarn = time.Now()
				s.log.Warn("connection refused because there are too many open connections", "current", cur, "max", max, "remote", nc.RemoteAddr().String())
			}
			_ = nc.Close()
			continue
		}
		c := s.newConn(nc)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			_ = nc.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.stats.connOpened()
		n := len(s.conns)
		s.mu.Unlock()
		remote := nc.RemoteAddr().String()
		s.log.Info("Connection accepted", mongolog.KeyComponent, "NETWORK", mongolog.KeyID, mongolog.IDConnectionAccepted,
			mongolog.KeyCtx, "listener", "remote", remote, "connectionId", c.id, "connectionCount", n)
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			n := len(s.conns)
			s.mu.Unlock()
			s.log.Info("Connection ended", mongolog.KeyComponent, "NETWORK", mongolog.KeyID, mongolog.IDConnectionEnded,
				mongolog.KeyCtx, "conn"+itoa(c.id), "remote", remote, "connectionId", c.id, "connectionCount", n)
		}()
	}
}

// CloseStuckConnections closes the client connections whose command
// began before since and is still running, leaving the others and the
// listeners open. After a storage failure (lode.Open's OnFailure) it ends
// the operations blocked inside the storage engine, which never return:
// their clients get a network error instead of waiting, and reconnect to
// find every command failing with the failure.
func (s *Server) CloseStuckConnections(since time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if op := c.op.Load(); op != nil && op.start.Before(since) {
			c.raw.Close()
		}
	}
}

// Close stops accepting, closes every connection, waits for their
// goroutines and closes open cursors. It does not close the engine.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil
	}
	s.closing = true
	if s.stop != nil {
		close(s.stop)
	}
	for ln := range s.lns {
		_ = ln.Close()
	}
	for c := range s.conns {
		c.raw.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	wait := 10 * time.Second
	if s.eng.Failed() != nil {
		// An operation blocked inside the failed storage engine never
		// returns.
		wait = time.Second
	}
	select {
	case <-done:
	case <-time.After(wait):
		s.log.Warn("connections still running at shutdown")
	}
	s.cursors.Close()
	s.flushQueryStats() // querystats_store.go
	return nil
}
