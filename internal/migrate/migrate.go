// Package migrate moves a live deployment to another one: `lode migrate`.
// It talks to both sides through the Go driver's public API only, so the
// target can be any MongoDB deployment and the source any server with
// change streams (a Lode server, or mongod).
//
// The move: a change stream on the whole source is opened first and its
// resume token kept; every included collection is then created on the
// target with its options, its documents copied in parallel batches, its
// indexes built; then the change stream is applied from the token,
// idempotently (a document's insert, replace or update sets it to the
// source's version, a delete removes it), until the process is stopped
// or cut over. The last applied token is saved on the target
// (CheckpointDB.CheckpointColl), so a restart resumes where it stopped.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// The checkpoint's namespace on the target.
const (
	CheckpointDB   = "lode_migrate"
	CheckpointColl = "checkpoint"
)

// Config is one run of `lode migrate`.
type Config struct {
	From, To string
	NS       *Namespaces
	// Workers is how many batches are written at once; BatchDocs and
	// BatchBytes bound a copy batch.
	Workers    int
	BatchDocs  int
	BatchBytes int
	// DryRun lists what would be copied; Verify only compares;
	// Cutover blocks writes on the source once caught up, drains,
	// verifies and stops; Drop drops target collections that are in the
	// way at a fresh start.
	DryRun, Verify, Cutover, Drop bool
	// Progress is how often progress and lag are printed.
	Progress time.Duration
	Out      io.Writer
}

// Migration is a running move.
type Migration struct {
	cfg      Config
	src, dst *mongo.Client
	out      *printer
	noSync   atomic.Bool // the source refused syncSource's write
	// migrationID names this migration in its checkpoint and in its
	// document on the source (config.lode_migrate_sync).
	migrationID string

	mu         sync.Mutex
	pending    map[string]pendingDoc // documents a unique index refused (catchup.go)
	pendingIdx []pendingIndex        // indexes not built yet (copy.go)
	capped     map[string]bool       // source namespaces known capped or not (catchup.go)
}

type printer struct {
	mu sync.Mutex
	w  io.Writer
}

func (p *printer) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, time.Now().UTC().Format("15:04:05")+" "+format+"\n", args...)
}

func connect(uri string, wc *writeconcern.WriteConcern) (*mongo.Client, error) {
	opts := options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(5 * time.Second).
		SetConnectTimeout(5 * time.Second)
	if wc != nil {
		opts.SetWriteConcern(wc)
	}
	return mongo.Connect(opts)
}

// targetConcern is every write's on the target: majority and
// journaled, so that what the target acknowledged survives its crash
// (or, on a replica set, a failover) and a checkpoint saved after it
// never claims more than the target holds.
func targetConcern() *writeconcern.WriteConcern {
	j := true
	return &writeconcern.WriteConcern{W: "majority", Journal: &j}
}

// Run runs the move the configuration describes until it ends (dry run,
// verify, cutover) or ctx is cancelled, when it saves its checkpoint and
// returns nil.
func Run(ctx context.Context, cfg Config) error {
	if cfg.NS == nil {
		cfg.NS = &Namespaces{}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.BatchDocs <= 0 {
		cfg.BatchDocs = 1000
	}
	if cfg.BatchBytes <= 0 {
		cfg.BatchBytes = 4 << 20
	}
	if cfg.Progress <= 0 {
		cfg.Progress = 2 * time.Second
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	m := &Migration{cfg: cfg, out: &printer{w: cfg.Out}}
	var err error
	if m.src, err = connect(cfg.From, nil); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer m.src.Disconnect(context.Background())
	if m.dst, err = connect(cfg.To, targetConcern()); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer m.dst.Disconnect(context.Background())
	switch {
	case cfg.DryRun:
		return m.dryRun(ctx)
	case cfg.Verify && !cfg.Cutover:
		diffs, err := m.verify(ctx)
		if err != nil {
			return err
		}
		if diffs > 0 {
			return fmt.Errorf("verify: %d difference(s)", diffs)
		}
		return nil
	}
	return m.run(ctx)
}

// run copies (unless the checkpoint says the copy is done), then follows
// the change stream.
func (m *Migration) run(ctx context.Context) error {
	var cp *checkpoint
	err := m.retry(ctx, "read the checkpoint", func() error {
		var err error
		cp, err = m.loadCheckpoint(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if cp != nil {
		m.migrationID = cp.MigrationID
		if err := m.retry(ctx, "check the checkpoint's source", func() error { return m.checkSameSource(ctx) }); err != nil {
			return err
		}
	}
	if cp == nil || cp.Phase == phaseCopy {
		if cp == nil {
			if err := m.retry(ctx, "open the source's change stream", func() error {
				tok, err := m.startToken(ctx)
				if err != nil {
					return err
				}
				m.migrationID = newMigrationID()
				if err := m.syncSource(ctx); err != nil {
					return err
				}
				cp = &checkpoint{Phase: phaseCopy, Token: tok, Started: time.Now().UTC(), MigrationID: m.migrationID}
				return nil
			}); err != nil {
				return err
			}
			if err := m.checkTarget(ctx); err != nil {
				return err
			}
			if err := m.retry(ctx, "save the checkpoint", func() error { return m.saveCheckpoint(ctx, cp) }); err != nil {
				return err
			}
			m.out.printf("change stream opened at %s; copying", tokenString(cp.Token))
		} else {
			m.out.printf("resuming the copy (%d collection(s) already copied); change stream from %s", len(cp.Copied), tokenString(cp.Token))
		}
		if err := m.copyAll(ctx, cp); err != nil {
			return err
		}
		if ctx.Err() != nil {
			m.out.printf("stopped during the copy; run the same command to resume")
			return nil
		}
		cp.Phase = phaseCatchUp
		if err := m.retry(ctx, "save the checkpoint", func() error { return m.saveCheckpoint(ctx, cp) }); err != nil {
			return err
		}
		m.out.printf("copy done; applying changes from %s", tokenString(cp.Token))
	} else {
		m.out.printf("resuming the catch-up from %s", tokenString(cp.Token))
	}
	return m.catchUp(ctx, cp)
}

// retry runs f until it succeeds, ctx ends or it fails with an error no
// retry mends, waiting longer after each failure (up to 5 s).
func (m *Migration) retry(ctx context.Context, what string, f func() error) error {
	wait := 200 * time.Millisecond
	for {
		err := f()
		if err == nil || ctx.Err() != nil {
			if ctx.Err() != nil && err != nil {
				return nil
			}
			return err
		}
		if !transient(err) {
			return fmt.Errorf("%s: %w", what, err)
		}
		m.out.printf("%s: %v; retrying in %v", what, err, wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// transient reports errors a restart of either side explains: network
// errors, server selection, the codes of a server shutting down or not
// yet ready, and CursorNotFound (43): a source restarted between two
// getMores of the copy answers the next one without the cursor.
func transient(err error) bool {
	if err == nil {
		return false
	}
	if mongo.IsNetworkError(err) || mongo.IsTimeout(err) || errors.Is(err, mongo.ErrClientDisconnected) || errors.Is(err, errSourceRestarted) {
		return true
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range []int{6, 7, 43, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436, 262} {
			if se.HasErrorCode(c) {
				return true
			}
		}
		if se.HasErrorLabel("RetryableWriteError") || se.HasErrorLabel("ResumableChangeStreamError") {
			return true
		}
		if codeOf(err) != 0 && !mongo.IsNetworkError(err) {
			return false // the server answered: its code decides
		}
	}
	s := err.Error()
	for _, frag := range []string{"server selection", "connection(", "connection closed", "connection pool", "EOF", "broken pipe", "reset by peer", "connection refused"} {
		if strings.Contains(s, frag) {
			return true
		}
	}
	return false
}

// command runs cmd on db of client c and decodes the reply.
func command(ctx context.Context, c *mongo.Client, db string, cmd bson.D) (bson.Raw, error) {
	return c.Database(db).RunCommand(ctx, cmd).Raw()
}

// targetCommand runs a collection or index change on the target, with
// the target's write concern: RunCommand sends none of the client's,
// and a change the target acknowledged before its journal held it could
// be lost by the target's crash after the checkpoint that counts it.
func (m *Migration) targetCommand(ctx context.Context, db string, cmd bson.D) (bson.Raw, error) {
	wc := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "j", Value: true}}}
	return command(ctx, m.dst, db, append(cmd[:len(cmd):len(cmd)], wc))
}

// codeOf is a server error's code, or 0.
func codeOf(err error) int {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		if len(bwe.WriteErrors) > 0 {
			return bwe.WriteErrors[0].Code
		}
		if bwe.WriteConcernError != nil {
			return bwe.WriteConcernError.Code
		}
	}
	var we mongo.WriteException
	if errors.As(err, &we) {
		if len(we.WriteErrors) > 0 {
			return we.WriteErrors[0].Code
		}
		if we.WriteConcernError != nil {
			return we.WriteConcernError.Code
		}
	}
	return 0
}
