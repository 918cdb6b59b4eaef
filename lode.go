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
// The same code runs against a MongoDB deployment by connecting the
// driver to its URI instead.
package lode

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/server"
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

type config struct {
	addr         string
	logger       *slog.Logger
	syncInterval time.Duration
	clientOpts   []*options.ClientOptions
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

// Open starts Lode on the data directory dir (created if missing) and
// returns a handle with a connected driver client.
func Open(dir string, opts ...Option) (*DB, error) {
	cfg := config{addr: "127.0.0.1:0"}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.logger == nil {
		// As documented on WithLogger: warnings and errors reach stderr.
		cfg.logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	eng, err := engine.Open(dir, engine.Options{SyncInterval: cfg.syncInterval, Logger: cfg.logger})
	if err != nil {
		return nil, fmt.Errorf("lode: open engine: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		eng.Close()
		return nil, fmt.Errorf("lode: listen on %s: %w", cfg.addr, err)
	}
	srv := server.New(eng, server.Config{Logger: cfg.logger})
	db := &DB{eng: eng, srv: srv, ln: ln, done: make(chan error, 1)}
	go func() { db.done <- srv.Serve(ln) }()
	db.uri = "mongodb://" + ln.Addr().String() + "/?directConnection=true"
	co := options.Client().ApplyURI(db.uri)
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

// URI returns the mongodb:// URI other clients can connect to.
func (db *DB) URI() string { return db.uri }

// Close disconnects the client, stops the server and closes the engine,
// syncing everything to disk. Calling it again returns the first call's
// result.
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
