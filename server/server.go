// Package server accepts MongoDB wire-protocol connections and dispatches
// their commands to the engine. Each command handler lives in its own
// cmd_*.go file and is thin: it parses arguments, calls the engine and
// shapes the reply as MongoDB 7.0 does.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lodedb/lode/cursor"
	"github.com/lodedb/lode/engine"
)

// Config configures a Server.
type Config struct {
	// Logger receives server logs; nil means slog.Default().
	Logger *slog.Logger
	// CursorTimeout closes idle cursors; zero means 10 minutes.
	CursorTimeout time.Duration
	// CmdLine is reported by getCmdLineOpts.
	CmdLine []string
	// Standalone turns off the replica-set identity (and with it
	// retryable writes and transactions), like a mongod without --replSet.
	Standalone bool
	// ReplSetName is the replica set's name; empty means "lode".
	ReplSetName string
	// AdvertiseAddr is the host:port reported in hello's hosts and me;
	// empty means the address the client connected to.
	AdvertiseAddr string
}

// Server serves the MongoDB wire protocol on top of an engine.
type Server struct {
	eng     *engine.Engine
	log     *slog.Logger
	cfg     Config
	cursors *cursor.Registry
	started time.Time
	host    string

	mu      sync.Mutex
	lns     map[net.Listener]struct{}
	conns   map[*conn]struct{}
	closing bool
	wg      sync.WaitGroup

	nextConnID atomic.Int64
	stats      stats
	logs       *logRing

	inserts     inserts
	paramsOnce  sync.Once
	params      params
	extraParams map[string]param

	sessions sessionRegistry // logical sessions and transactions (session.go)
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
		eng:     eng,
		log:     log,
		cfg:     cfg,
		cursors: cursor.NewRegistry(cfg.CursorTimeout),
		started: time.Now(),
		host:    host,
		lns:     make(map[net.Listener]struct{}),
		conns:   make(map[*conn]struct{}),
		logs:    newLogRing(1024),
	}
	return s
}

// Serve accepts connections on ln until the server is closed. It returns
// nil after Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return errors.New("server: closed")
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	s.log.Info("waiting for connections", "addr", ln.Addr().String())
	s.logs.add(fmt.Sprintf(`{"t":{"$date":%q},"s":"I","c":"NETWORK","msg":"Waiting for connections","attr":{"addr":%q}}`, time.Now().UTC().Format(time.RFC3339Nano), ln.Addr().String()))
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				if delay == 0 {
					delay = 5 * time.Millisecond
				} else if delay < time.Second {
					delay *= 2
				}
				time.Sleep(delay)
				continue
			}
			return fmt.Errorf("server: accept: %w", err)
		}
		delay = 0
		c := s.newConn(nc)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			_ = nc.Close()
			return nil
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
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
	for ln := range s.lns {
		_ = ln.Close()
	}
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.log.Warn("connections still running at shutdown")
	}
	s.cursors.Close()
	return nil
}

// background returns the context for work not tied to one request.
func (s *Server) background() context.Context { return context.Background() }
