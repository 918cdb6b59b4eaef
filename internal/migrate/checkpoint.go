package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Phases of a move, as the checkpoint records them.
const (
	phaseCopy    = "copy"
	phaseCatchUp = "catchUp"
	phaseCutover = "cutover"
)

// checkpoint is the state of a move saved on the target: the change
// stream's resume token (the start of the copy during the copy phase,
// then the last applied change), the phase, and the source namespaces
// whose copy is done.
type checkpoint struct {
	ID      string    `bson:"_id"`
	Phase   string    `bson:"phase"`
	Token   bson.Raw  `bson:"token"`
	Copied  []string  `bson:"copied"`
	Started time.Time `bson:"started"`
	Updated time.Time `bson:"updated"`
	Applied int64     `bson:"applied"`
	// MigrationID is also the _id of the migration's document in the
	// source's config.lode_migrate_sync: a checkpoint is resumed only
	// against the source it came from.
	MigrationID string `bson:"migrationId"`
	// Pending are documents a unique index refused on the target, set
	// again from the source until it takes them; PendingIndexes are
	// indexes the target could not build on the copy as read (a unique
	// key two documents shared while it changed), built again during
	// the catch-up.
	Pending        []pendingDoc   `bson:"pending,omitempty"`
	PendingIndexes []pendingIndex `bson:"pendingIndexes,omitempty"`
}

// checkpointColl is the checkpoint's collection, written (as every
// write to the target) with w: majority and j: true.
func (m *Migration) checkpointColl() *mongo.Collection {
	return m.dst.Database(CheckpointDB).Collection(CheckpointColl)
}

var journaled = true

// loadCheckpoint returns the saved checkpoint, or nil.
func (m *Migration) loadCheckpoint(ctx context.Context) (*checkpoint, error) {
	var cp checkpoint
	err := m.checkpointColl().FindOne(ctx, bson.D{{Key: "_id", Value: "state"}}).Decode(&cp)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &cp, nil
}

// saveCheckpoint writes cp (majority, journaled: it must survive the
// target's restart when the applied changes do).
func (m *Migration) saveCheckpoint(ctx context.Context, cp *checkpoint) error {
	cp.ID = "state"
	cp.Updated = time.Now().UTC()
	_, err := m.checkpointColl().ReplaceOne(ctx, bson.D{{Key: "_id", Value: "state"}}, cp, options.Replace().SetUpsert(true))
	return err
}

// startToken opens a change stream on the whole source and returns its
// resume token before any change is read: every change after it is
// applied after the copy. The first batch has size 0, so that it holds
// no change and its postBatchResumeToken is the stream's start: on a
// busy source, a change made between the stream's start and its first
// batch would otherwise come in that batch, with no token before it.
func (m *Migration) startToken(ctx context.Context) (bson.Raw, error) {
	cs, err := m.src.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true).SetBatchSize(0))
	if err != nil {
		return nil, err
	}
	defer cs.Close(context.Background())
	if tok := cs.ResumeToken(); tok != nil {
		return append(bson.Raw{}, tok...), nil
	}
	if cs.TryNext(ctx) {
		return nil, errors.New("the source's change stream gave no resume token before its first change")
	}
	if err := cs.Err(); err != nil {
		return nil, err
	}
	tok := cs.ResumeToken()
	if tok == nil {
		return nil, errors.New("the source's change stream gives no resume token (postBatchResumeToken)")
	}
	return append(bson.Raw{}, tok...), nil
}

// tokenTime reads the cluster time a resume token stands for: its _data
// starts with the hex of the timestamp (Lode's and mongod's alike).
func tokenTime(tok bson.Raw) (bson.Timestamp, bool) {
	data, ok := tok.Lookup("_data").StringValueOK()
	if !ok || len(data) < 18 || data[:2] != "82" {
		return bson.Timestamp{}, false
	}
	v, err := strconv.ParseUint(data[2:18], 16, 64)
	if err != nil {
		return bson.Timestamp{}, false
	}
	return bson.Timestamp{T: uint32(v >> 32), I: uint32(v)}, true
}

func tokenString(tok bson.Raw) string {
	if ts, ok := tokenTime(tok); ok {
		return fmt.Sprintf("%s (%d.%d)", time.Unix(int64(ts.T), 0).UTC().Format(time.RFC3339), ts.T, ts.I)
	}
	return tok.String()
}

// sourceTime is the source's latest cluster time (a hello's
// operationTime).
func (m *Migration) sourceTime(ctx context.Context) (bson.Timestamp, error) {
	r, err := command(ctx, m.src, "admin", bson.D{{Key: "hello", Value: 1}})
	if err != nil {
		return bson.Timestamp{}, err
	}
	t, i, ok := r.Lookup("operationTime").TimestampOK()
	if !ok {
		return bson.Timestamp{}, errors.New("the source's hello reply has no operationTime")
	}
	return bson.Timestamp{T: t, I: i}, nil
}

// syncSource makes everything the source has written so far durable
// before it is copied or applied: one journaled write (j: true) to
// config.lode_migrate_sync on the source, which a journal sync covers
// with every write before it. mongod's change streams return only
// majority-committed (so journaled) changes; Lode's return a change once
// it is visible, and a kill -9 of a Lode source could otherwise take
// back changes the target already has (and reissue their timestamps).
// Best effort: a source that refuses the write (no privilege on config)
// gets a warning, once.
func (m *Migration) syncSource(ctx context.Context) error {
	if m.noSync.Load() {
		return nil
	}
	wc := &writeconcern.WriteConcern{W: 1, Journal: &journaled}
	coll := m.src.Database("config").Collection(syncColl, options.Collection().SetWriteConcern(wc))
	_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: m.migrationID}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}, options.UpdateOne().SetUpsert(true))
	if err == nil || transient(err) {
		return err
	}
	if m.noSync.CompareAndSwap(false, true) {
		m.out.printf("warning: cannot make the source's writes durable before applying them (%v); a crash of the source could lose changes the target has", err)
	}
	return nil
}

// srcIdentity tells one run of the source's server process from the
// next: its pid and start time (serverStatus).
type srcIdentity struct {
	pid   int64
	start time.Time
}

func (a srcIdentity) same(b srcIdentity) bool {
	d := a.start.Sub(b.start)
	return a.pid == b.pid && d < 2*time.Second && d > -2*time.Second
}

// errSourceRestarted makes the catch-up reopen its stream from the
// checkpoint: the driver resumed the stream by itself after a restart
// of the source, from a position the source may no longer have had.
var errSourceRestarted = errors.New("the source restarted")

func (m *Migration) sourceIdentity(ctx context.Context) (srcIdentity, error) {
	r, err := command(ctx, m.src, "admin", bson.D{{Key: "serverStatus", Value: 1}})
	if err != nil {
		return srcIdentity{}, err
	}
	pid, _ := r.Lookup("pid").AsInt64OK()
	up, _ := r.Lookup("uptimeMillis").AsInt64OK()
	now, ok := r.Lookup("localTime").DateTimeOK()
	if !ok {
		return srcIdentity{pid: pid}, nil
	}
	return srcIdentity{pid: pid, start: time.UnixMilli(now - up)}, nil
}

// syncColl is the source's collection (in config) of syncSource's
// writes, one document per migration.
const syncColl = "lode_migrate_sync"

func newMigrationID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checkSameSource refuses to resume a checkpoint made against another
// source: the source must hold the migration's document.
func (m *Migration) checkSameSource(ctx context.Context) error {
	if m.migrationID == "" {
		return nil
	}
	err := m.src.Database("config").Collection(syncColl).FindOne(ctx, bson.D{{Key: "_id", Value: m.migrationID}}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("the target holds the checkpoint of migration %s, which did not come from this source (its config.%s has no such migration): point this migration at another target, or drop the target's %s database and the collections copied to start again", m.migrationID, syncColl, CheckpointDB)
	}
	if err != nil && !transient(err) {
		m.out.printf("warning: cannot check that the checkpoint came from this source: %v", err)
		return nil
	}
	return err
}
