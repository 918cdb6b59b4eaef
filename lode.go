// Package lode embeds the Lode document database in a Go program.
//
// Open starts the storage engine on a data directory and serves the
// MongoDB wire protocol on a loopback port, then returns a handle whose
// Client is an official Go driver client already connected to it:
//
//	db, err := lode.Open("./data")
//	if err != nil { ... }
//	defer db.Close()
//	coll := db.Client().Database("app").Collection("jobs")
//
// With InProcess the client talks to the engine through in-memory
// connections and no port is opened:
//
//	db, err := lode.Open("./data", lode.InProcess())
//
// The same code runs against a MongoDB deployment by connecting the
// driver to its URI instead.
package lode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/server"
	"github.com/lodedb/lode/internal/storage"
)

// DB is an embedded Lode instance.
type DB struct {
	eng    *engine.Engine
	srv    *server.Server
	ln     net.Listener
	client *mongo.Client
	uri    string
	done   chan error

	closeOnce sync.Once
	closeErr  error
}

// ErrLocked is returned (wrapped) by Open when another process, or
// another DB in this one, has the data directory open.
var ErrLocked = storage.ErrLocked

// stuckGrace is how long after a storage failure a command still
// running is taken as blocked in the failed engine, and its connection
// closed.
const stuckGrace = time.Second

// inProcessHost is the address an InProcess server reports in hello.
const inProcessHost = "in-process:27017"

// Open starts Lode on the data directory dir (created if missing) and
// returns a handle with a connected driver client.
//
// The program owns the instance's lifetime: the shutdown command (mongosh's
// db.shutdownServer()) is refused with IllegalOperation (20), and the
// instance stops when the program calls DB.Close. logRotate succeeds and
// does nothing, since the log goes to the program's logger (WithLogger).
func Open(dir string, opts ...Option) (*DB, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.inProcess && cfg.addr != "" {
		return nil, errors.New("lode: WithAddr and InProcess exclude each other: an in-process DB opens no port")
	}
	if cfg.oplogMB < 0 || cfg.oplogMB > 1<<30 {
		return nil, fmt.Errorf("lode: WithOplogSizeMB(%d): want a size in MiB between 1 and %d, or 0 for no oplog", cfg.oplogMB, int64(1<<30))
	}
	cacheBytes, err := storage.CacheSizeFromGB(cfg.cacheGB)
	if err != nil {
		return nil, fmt.Errorf("lode: WithCacheSizeGB(%v): %w", cfg.cacheGB, err)
	}
	srvCfg := server.Config{TestCommands: cfg.testCommands}
	if cfg.slowOpSet {
		if cfg.slowOp < 0 {
			return nil, fmt.Errorf("lode: WithSlowOpThreshold(%v): want a duration of 0 or more", cfg.slowOp)
		}
		srvCfg.SlowOpThreshold = cfg.slowOp
		if cfg.slowOp == 0 {
			srvCfg.SlowOpThreshold = -1 // Config's "every command"
		}
	}
	for _, p := range cfg.params {
		if err := srvCfg.SetStartupParameter(p[0], p[1]); err != nil {
			return nil, fmt.Errorf("lode: WithSetParameter: %w", err)
		}
	}
	if cfg.addr == "" {
		cfg.addr = "127.0.0.1:0"
	}
	if cfg.logger == nil {
		// As documented on WithLogger: warnings and errors reach stderr.
		cfg.logger = slog.New(mongolog.NewTextHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	var srvRef atomic.Pointer[server.Server]
	onFailure := func(f *storage.Failure) {
		cfg.logger.Error("lode: writing to the data directory failed; every operation now fails until the DB is closed and reopened",
			"dataPath", f.Dir, "freeBytes", f.FreeBytes, "diskFull", f.DiskFull, "err", f.Err.Error())
		// A command that was inside the storage engine's commit when it
		// failed may stay blocked there: after a grace second its
		// connection is closed, so that its client gets an error.
		failedAt := time.Now()
		time.AfterFunc(stuckGrace, func() {
			if srv := srvRef.Load(); srv != nil {
				srv.CloseStuckConnections(failedAt)
			}
		})
	}
	eng, err := engine.Open(dir, engine.Options{SyncInterval: cfg.syncInterval, Logger: cfg.logger, OplogBytes: cfg.oplogBytes, FS: cfg.fs, CacheSize: cacheBytes,
		OnFailure: onFailure})
	if errors.Is(err, storage.ErrLocked) {
		return nil, fmt.Errorf("lode: data directory %s is in use by another process or another lode.DB (close it first, or use another directory): %w", dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("lode: open engine: %w", err)
	}
	db := &DB{eng: eng, done: make(chan error, 1)}
	srvCfg.Logger, srvCfg.Auth = cfg.logger, cfg.authUser != ""
	co := options.Client()
	if cfg.authUser != "" {
		if err := bootstrapUser(eng, cfg.authUser, cfg.authPwd); err != nil {
			eng.Close()
			return nil, err
		}
		co.SetAuth(options.Credential{Username: cfg.authUser, Password: cfg.authPwd, AuthSource: "admin"})
	}
	if cfg.inProcess {
		pl := server.NewPipeListener(inProcessHost)
		db.ln = pl
		srvCfg.AdvertiseAddr = inProcessHost
		co.ApplyURI("mongodb://" + inProcessHost + "/?directConnection=true").SetDialer(pl)
	} else {
		ln, err := net.Listen("tcp", cfg.addr)
		if err != nil {
			eng.Close()
			if errors.Is(err, syscall.EADDRINUSE) {
				return nil, fmt.Errorf("lode: %s is already in use by another program (lode serve, mongod?); pass another address to WithAddr, or 127.0.0.1:0 for a free port: %w", cfg.addr, err)
			}
			return nil, fmt.Errorf("lode: listen on %s: %w", cfg.addr, err)
		}
		db.ln = ln
		db.uri = "mongodb://" + ln.Addr().String() + "/?directConnection=true"
		co.ApplyURI(db.uri)
	}
	db.srv = server.New(eng, srvCfg)
	srvRef.Store(db.srv)
	go func() { db.done <- db.srv.Serve(db.ln) }()
	all := append([]*options.ClientOptions{co}, cfg.clientOpts...)
	client, err := mongo.Connect(all...)
	if err != nil {
		db.shutdown()
		return nil, fmt.Errorf("lode: connect client: %w", err)
	}
	db.client = client
	return db, nil
}

// Client returns the connected driver client.
func (db *DB) Client() *mongo.Client { return db.client }

// URI returns the mongodb:// URI other clients can connect to, or "" for
// an InProcess DB, which no other client can reach.
func (db *DB) URI() string { return db.uri }

// Close disconnects the client, stops the server and closes the engine,
// syncing everything to disk. Calling it again returns the first call's
// result.
//
// If a write to the data directory failed (disk full, EIO), the DB is in
// a failed state: every command but the handshake fails at once with
// OutOfDiskSpace (14031) or InternalError (1), and Close returns that
// failure without waiting for the storage engine beyond a few seconds.
// Open the directory again once the filesystem is healthy: every write
// acknowledged with j:true is there. Open refuses a directory whose
// filesystem is too full to start on.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		if db.client != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = db.client.Disconnect(ctx)
			cancel()
		}
		db.closeErr = db.shutdown()
	})
	return db.closeErr
}

func (db *DB) shutdown() error {
	_ = db.srv.Close()
	<-db.done
	if err := db.eng.Close(); err != nil {
		return fmt.Errorf("lode: close engine: %w", err)
	}
	return nil
}

// bootstrapUser creates user@admin with the root role when no user
// exists yet.
func bootstrapUser(eng *engine.Engine, user, pwd string) error {
	st := auth.NewStore(eng)
	ctx := context.Background()
	has, err := st.HasUsers(ctx)
	if err != nil || has {
		return err
	}
	creds := map[string]auth.Credential{}
	for _, m := range []string{auth.MechSHA1, auth.MechSHA256} {
		c, err := auth.NewCredential(m, user, pwd)
		if err != nil {
			return fmt.Errorf("lode: credential for %s: %w", user, err)
		}
		creds[m] = c
	}
	u := &auth.User{Name: user, DB: "admin", UserID: auth.NewUserID(), Creds: creds, Roles: []auth.RoleName{{Role: "root", DB: "admin"}}}
	if err := st.CreateUser(ctx, u); err != nil {
		return fmt.Errorf("lode: create the first user: %w", err)
	}
	return nil
}
