// Package bucket stores a long per-owner series as pages of fixed size,
// the bucket pattern of seed 001 (pagination of stock trades).
//
// Each bucket is one document:
//
//	{_id: "<owner>_<epoch seconds of its first item>", owner: ..., count: n, history: [...]}
//
// The seconds are those of the bucket's first item. By default that is the
// time Append opens the bucket (the store's clock, WithClock); with
// WithItemTime they come from the item itself, so history back-filled from
// older data gets the seed's "<owner>_<first item epoch seconds>" _ids.
//
// Page p of an owner is find({_id: /^<owner>_/}).sort({_id: 1}).skip(p-1)
// .limit(1), served by the _id index. Append adds an item with the seed's
// conditional upsert: {$push: {history: item}, $inc: {count: 1}} on a bucket
// whose count is below the size, inserting a new bucket when none matches.
//
// Concurrency. The seed's filter {_id: /^owner_/, count: {$lt: 10}} has two
// problems under concurrent appends:
//   - it can match any non-full bucket, not only the newest, so items can
//     land in an older page after newer ones;
//   - two appenders that both miss both insert; with one bucket per second
//     their _ids collide (E11000 duplicate key), and a full bucket started
//     in the same second as the new item blocks the insert forever.
//
// Append therefore first reads the newest bucket (highest _id) and then
// runs the seed's upsert with an exact _id in the filter: the newest
// bucket's _id when it has room, otherwise the next bucket's _id. The
// count < size condition stays in the filter, so a bucket that filled in
// between makes the upsert try to insert a duplicate _id; Append catches
// DuplicateKey and retries with a fresh read. Items therefore only ever go
// into the newest bucket, no bucket exceeds the size, and no item is lost.
//
// Suffix rule. _ids must sort in bucket order, since Page sorts on _id.
// When a new bucket's first item is in the same second as the newest
// bucket's (or earlier: a clock behind, or back-filled items out of order)
// the new _id keeps the newest bucket's seconds and gets a six-digit
// sequence suffix: after "<owner>_<s>" comes "<owner>_<s>_000001", then
// "<owner>_<s>_000002", and so on. A suffixed _id sorts after its
// predecessor and before "<owner>_<s+1>" for equal-length seconds (all
// epoch seconds from 2001 to 2286 have ten digits). Two
// appenders that open buckets in different seconds at the same moment can
// both succeed; the older of the two new buckets then keeps fewer than size
// items (a short page), which the seed's scheme has as well.
//
// Sharding: on a MongoDB cluster shard on {owner: 1} (or a hashed owner) —
// every query and update of this package targets one owner; the _id prefix
// regex alone cannot be routed, so add the owner to filters when sharding
// (Page and Append already include it).
package bucket

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// DefaultSize is the number of items per bucket (one page), as in the seed.
const DefaultSize = 10

// Store appends to and pages through buckets in one collection.
type Store struct {
	coll     *mongo.Collection
	size     int
	now      func() time.Time
	itemTime func(item any) time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithSize sets the bucket size (items per page).
func WithSize(n int) Option { return func(s *Store) { s.size = n } }

// WithClock sets the clock Append uses for new bucket _ids.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithItemTime makes Append take a new bucket's _id seconds from the
// time of its first item, as returned by f, instead of the store's clock.
// A zero time from f falls back to the clock.
func WithItemTime(f func(item any) time.Time) Option {
	return func(s *Store) { s.itemTime = f }
}

// New returns a Store on coll with DefaultSize buckets.
func New(coll *mongo.Collection, opts ...Option) *Store {
	s := &Store{coll: coll, size: DefaultSize, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if s.size <= 0 {
		s.size = DefaultSize
	}
	return s
}

// Size returns the bucket size.
func (s *Store) Size() int { return s.size }

func ownerFilter(owner string) bson.D {
	return bson.D{
		{Key: "_id", Value: bson.Regex{Pattern: "^" + regexp.QuoteMeta(owner) + "_"}},
		{Key: "owner", Value: owner},
	}
}

// maxAttempts bounds Append's retries; each retry follows a concurrent
// append that made progress, so it is only reached under extreme contention.
const maxAttempts = 1000

// Append adds item to owner's newest bucket, opening a new bucket when the
// newest is full. It is safe for concurrent use.
func (s *Store) Append(ctx context.Context, owner string, item any) error {
	if strings.Contains(owner, "_") {
		return fmt.Errorf("bucket: owner %q must not contain '_'", owner)
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var newest struct {
			ID    string `bson:"_id"`
			Count int    `bson:"count"`
		}
		err := s.coll.FindOne(ctx, ownerFilter(owner), options.FindOne().
			SetSort(bson.D{{Key: "_id", Value: -1}}).
			SetProjection(bson.D{{Key: "count", Value: 1}})).Decode(&newest)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			newest.ID = ""
		case err != nil:
			return fmt.Errorf("bucket: find newest bucket of %s: %w", owner, err)
		}
		target := newest.ID
		if target == "" || newest.Count >= s.size {
			target = nextID(owner, s.firstItemTime(item), newest.ID)
		}
		_, err = s.coll.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: target}, {Key: "count", Value: bson.D{{Key: "$lt", Value: s.size}}}},
			bson.D{
				{Key: "$push", Value: bson.D{{Key: "history", Value: item}}},
				{Key: "$inc", Value: bson.D{{Key: "count", Value: 1}}},
				{Key: "$setOnInsert", Value: bson.D{{Key: "owner", Value: owner}}},
			},
			options.UpdateOne().SetUpsert(true))
		if err == nil {
			return nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("bucket: append to %s: %w", target, err)
		}
		// The bucket filled (or was created) concurrently: read again.
	}
	return fmt.Errorf("bucket: append for %s: gave up after %d attempts", owner, maxAttempts)
}

// firstItemTime returns the time a bucket opened by item is named after.
func (s *Store) firstItemTime(item any) time.Time {
	if s.itemTime != nil {
		if t := s.itemTime(item); !t.IsZero() {
			return t
		}
	}
	return s.now()
}

// nextID returns the _id of the bucket after prev (prev may be empty) for
// a first item at time at.
func nextID(owner string, at time.Time, prev string) string {
	sec := at.Unix()
	if prev == "" {
		return owner + "_" + strconv.FormatInt(sec, 10)
	}
	rest := strings.TrimPrefix(prev, owner+"_")
	secPart, seqPart, hasSeq := strings.Cut(rest, "_")
	prevSec, err := strconv.ParseInt(secPart, 10, 64)
	if err != nil || sec > prevSec {
		return owner + "_" + strconv.FormatInt(sec, 10)
	}
	seq := int64(0)
	if hasSeq {
		seq, _ = strconv.ParseInt(seqPart, 10, 64)
	}
	return fmt.Sprintf("%s_%d_%06d", owner, prevSec, seq+1)
}

// Page returns the items of owner's page p (1-based), or nil when there is
// no such page: the seed's find({_id: /^owner_/}).sort({_id: 1})
// .skip(p-1).limit(1).
func (s *Store) Page(ctx context.Context, owner string, p int) ([]bson.Raw, error) {
	if p < 1 {
		return nil, fmt.Errorf("bucket: page %d: pages start at 1", p)
	}
	var b struct {
		History []bson.Raw `bson:"history"`
	}
	err := s.coll.FindOne(ctx, ownerFilter(owner), options.FindOne().
		SetSort(bson.D{{Key: "_id", Value: 1}}).SetSkip(int64(p-1))).Decode(&b)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bucket: page %d of %s: %w", p, owner, err)
	}
	return b.History, nil
}

// Pages returns the number of pages (buckets) owner has.
func (s *Store) Pages(ctx context.Context, owner string) (int, error) {
	n, err := s.coll.CountDocuments(ctx, ownerFilter(owner))
	if err != nil {
		return 0, fmt.Errorf("bucket: count pages of %s: %w", owner, err)
	}
	return int(n), nil
}
