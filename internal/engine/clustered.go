package engine

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/storage"
)

// Clustered collections (create's clusteredIndex) keep their records in
// storage's clustered layout, keyed by the _id's keystring in the
// clustered index (Indexes[0], which has no entries of its own); their
// other indexes' entries carry that cluster key (storage/clustered.go).
// The write path computes the key from each document (writeBatch's
// setClusterKey), the planner turns _id bounds into a bounded scan of the
// records (plan/clustered.go), and the helpers here open and read the
// records either way for the rest of the engine.

// openRecords opens a cursor over every record of c in r, forward.
func openRecords(r storage.Reader, c *collection) (*storage.RecordCursor, error) {
	cur := &storage.RecordCursor{}
	var err error
	if c.Clustered {
		err = cur.OpenClustered(r, c.ID, nil, nil, false)
	} else {
		err = cur.Open(r, c.ID, false)
	}
	if err != nil {
		return nil, err
	}
	return cur, nil
}

// clusterKeyOf returns the cluster key of doc in clustered collection c
// (its _id's keystring in the clustered index), appended to dst.
func clusterKeyOf(g *indexkey.Generator, c *collection, doc bsoncore.Document, dst []byte) ([]byte, error) {
	keys, _, _, err := g.Keys(c.Indexes[0], doc)
	if err != nil {
		return dst, err
	}
	if len(keys) != 1 {
		return dst, fmt.Errorf("clustered record without a single _id key")
	}
	return append(dst, keys[0]...), nil
}

// getRecordRef reads the record of c that rid names, or, in a clustered
// collection, ck (its cluster key), appending its document to dst; rid is
// then the record's id as read.
func getRecordRef(r storage.Reader, c *collection, rid uint64, ck []byte, dst []byte) (doc []byte, id uint64, found bool, err error) {
	if !c.Clustered {
		doc, found, err = storage.GetRecord(r, c.ID, storage.RecordID(rid), dst)
		return doc, rid, found, err
	}
	doc, got, found, err := storage.GetClusteredRecord(r, c.ID, ck, dst)
	return doc, uint64(got), found, err
}

// clusteredListSpec returns the clustered index of c as mongod 7.0's
// listIndexes shows it: the spec of listCollections'
// options.clusteredIndex, then clustered: true (expireAfterSeconds is in
// the collection's options only).
func clusteredListSpec(c *collection) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	elems, _ := c.ClusteredIndexSpec().Elements()
	for _, el := range elems {
		b.AppendValue(el.Key(), el.Value())
	}
	return b.AppendBoolean("clustered", true).Build()
}

// SetClusteredExpiry sets (secs nil: removes) the expireAfterSeconds of
// clustered collection db.coll (collMod), which the TTL monitor applies
// to its _id dates.
func (e *Engine) SetClusteredExpiry(db, coll string, secs *int64) error {
	c, err := e.lockCollForCollMod(db, coll)
	if err != nil {
		return err
	}
	defer c.state.mu.Unlock()
	if !c.Clustered {
		return errs.New(errs.InvalidOptions, "collMod.expireAfterSeconds applies only to clustered collections: %s is not clustered", c.NS())
	}
	b := bsoncore.NewDocumentBuilder()
	if els, err := c.Options.Elements(); err == nil {
		for _, el := range els {
			if el.Key() != "expireAfterSeconds" {
				b.AppendValue(el.Key(), el.Value())
			}
		}
	}
	o := cmdDoc("collMod", c.Name, "expireAfterSeconds", "off")
	if secs != nil {
		b.AppendInt64("expireAfterSeconds", *secs)
		o = cmdDoc("collMod", c.Name, "expireAfterSeconds", *secs)
	}
	n := c.copyMeta()
	n.Options = b.Build()
	n.ExpireAfter = secs
	return e.commitCollMod(c, n, o)
}
