// Package metadata stores arbitrary typed attributes of a document as an
// array of key/value pairs, the pattern of seed 002 (image metadata):
//
//	{_id: ..., metadata: [{key: "MIME type", value: "image/jpeg"},
//	                      {key: "Image size", value: {width: 480, height: 360}}, ...]}
//
// One multikey compound index {"metadata.key": 1, "metadata.value": 1}
// serves queries on any attribute. A query on several attributes is $all of
// $elemMatch, one $elemMatch per pair, because a single $elemMatch can only
// match one array element (Find builds it).
//
// Values keep their BSON types: strings, numbers, dates (time.Time) and
// embedded documents all compare by MongoDB's rules. An embedded document
// matches only a document with the same fields in the same order, so use a
// struct (or bson.D) for values like Image size, never a Go map.
//
// Sharding: the seed notes that no metadata key can be a shard key; shard on
// the owner of the document instead (seed 002 adds userId and shards on
// {userId: 1}), so a user's query goes to one shard and the metadata
// narrows it there. Put and FindWith accept extra fields for that.
package metadata

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Pair is one metadata attribute.
type Pair struct {
	Key   string `bson:"key"`
	Value any    `bson:"value"`
}

// P is shorthand for Pair{Key: key, Value: value}.
func P(key string, value any) Pair { return Pair{Key: key, Value: value} }

// Size is an image size value, stored as {width, height}.
type Size struct {
	Width  int `bson:"width"`
	Height int `bson:"height"`
}

// IndexKeys is the seed's index {"metadata.key": 1, "metadata.value": 1}.
var IndexKeys = bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}}

// Store reads and writes metadata documents in one collection.
type Store struct {
	coll *mongo.Collection
}

// New returns a Store on coll.
func New(coll *mongo.Collection) *Store { return &Store{coll: coll} }

// EnsureIndexes creates the {"metadata.key": 1, "metadata.value": 1} index.
func (s *Store) EnsureIndexes(ctx context.Context) error {
	if _, err := s.coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: IndexKeys}); err != nil {
		return fmt.Errorf("metadata: create index: %w", err)
	}
	return nil
}

// Put stores pairs as the metadata of document id, creating it if needed;
// extra fields (for example the userId shard key) are set alongside.
func (s *Store) Put(ctx context.Context, id any, pairs []Pair, extra ...bson.E) error {
	if pairs == nil {
		pairs = []Pair{}
	}
	set := append(bson.D{{Key: "metadata", Value: pairs}}, extra...)
	_, err := s.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$set", Value: set}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("metadata: put %v: %w", id, err)
	}
	return nil
}

// Filter returns {metadata: {$all: [{$elemMatch: {key: k1, value: v1}}, ...]}}.
func Filter(pairs ...Pair) bson.D {
	all := make(bson.A, len(pairs))
	for i, p := range pairs {
		all[i] = bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: p.Key}, {Key: "value", Value: p.Value}}}}
	}
	return bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: all}}}}
}

// Find returns the documents having every pair:
// find({metadata: {$all: [{$elemMatch: {key, value}}, ...]}}).
func (s *Store) Find(ctx context.Context, pairs ...Pair) ([]bson.Raw, error) {
	return s.FindWith(ctx, pairs)
}

// FindWith is Find with extra equality fields (such as the userId shard
// key) added to the filter.
func (s *Store) FindWith(ctx context.Context, pairs []Pair, extra ...bson.E) ([]bson.Raw, error) {
	if len(pairs) == 0 {
		return nil, errors.New("metadata: Find needs at least one pair")
	}
	filter := append(append(bson.D{}, extra...), Filter(pairs...)...)
	cur, err := s.coll.Find(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("metadata: find: %w", err)
	}
	var out []bson.Raw
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("metadata: find: %w", err)
	}
	return out, nil
}

// Get returns the metadata of document id as pairs, with values decoded
// to their default Go types (bson.D for documents, bson.DateTime for dates).
func (s *Store) Get(ctx context.Context, id any) ([]Pair, error) {
	var doc struct {
		Metadata []struct {
			Key   string        `bson:"key"`
			Value bson.RawValue `bson:"value"`
		} `bson:"metadata"`
	}
	if err := s.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&doc); err != nil {
		return nil, fmt.Errorf("metadata: get %v: %w", id, err)
	}
	out := make([]Pair, len(doc.Metadata))
	for i, m := range doc.Metadata {
		var v any
		if err := m.Value.Unmarshal(&v); err != nil {
			return nil, fmt.Errorf("metadata: decode %q of %v: %w", m.Key, id, err)
		}
		out[i] = Pair{Key: m.Key, Value: v}
	}
	return out, nil
}
