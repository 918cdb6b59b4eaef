package engine

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/storage"
)

// IndexFlagChange is a collMod of an index's hidden, prepareUnique,
// unique or forceNonUnique option (mongod 5.2+/6.0+).
type IndexFlagChange struct {
	Hidden, PrepareUnique *bool
	// Unique converts the index to unique; it needs prepareUnique set
	// first and no duplicate keys.
	Unique bool
	// ForceNonUnique converts a unique index to non-unique.
	ForceNonUnique bool
}

// IndexFlagResult is what the change did: the options' old values.
type IndexFlagResult struct {
	HiddenOld, PrepareUniqueOld bool
	// UniqueNew and ForceNonUniqueNew are set when the conversion ran.
	UniqueNew, ForceNonUniqueNew bool
}

// ModifyIndexFlags applies ch to the index of db.coll named name, or
// (when name is empty) whose key pattern is key.
//
// Converting to unique scans the index for keys held by several records;
// if there are any, it fails with CannotConvertIndexToUnique (359) and
// lists the _ids of each group in violations, as mongod does.
func (e *Engine) ModifyIndexFlags(db, coll, name string, key bsoncore.Document, ch IndexFlagChange) (IndexFlagResult, error) {
	var out IndexFlagResult
	c, pos, err := e.lockIndexForCollMod(db, coll, name, key)
	if err != nil {
		return out, err
	}
	defer c.state.mu.Unlock()
	old := c.Indexes[pos]
	if old.IsID() {
		return out, errs.New(errs.BadValue, "can't modify the hidden, prepareUnique or unique option of the _id index")
	}
	ix := *old
	out.HiddenOld, out.PrepareUniqueOld = old.Hidden, old.PrepareUnique
	if ch.Hidden != nil {
		ix.Hidden = *ch.Hidden
	}
	if old.HashedField() >= 0 && (ch.Unique || ch.PrepareUnique != nil && *ch.PrepareUnique) {
		return out, errs.New(errs.Code(16764), "Currently hashed indexes cannot guarantee uniqueness. Use a regular index.")
	}
	if ch.PrepareUnique != nil {
		if *ch.PrepareUnique && old.Unique {
			return out, errs.New(errs.InvalidOptions, "Cannot set 'prepareUnique' on an index that is already unique: %s", old.Name)
		}
		ix.PrepareUnique = *ch.PrepareUnique
	}
	if ch.Unique && !old.Unique {
		if !old.PrepareUnique {
			return out, errs.New(errs.InvalidOptions, "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.")
		}
		violations, err := e.duplicateKeyGroups(c, old)
		if err != nil {
			return out, err
		}
		if len(violations) > 0 {
			ab := bsoncore.NewArrayBuilder()
			for _, ids := range violations {
				ib := bsoncore.NewArrayBuilder()
				for _, id := range ids {
					ib.AppendValue(id)
				}
				ab.AppendDocument(bsoncore.NewDocumentBuilder().AppendArray("ids", ib.Build()).Build())
			}
			err := errs.New(errs.CannotConvertIndexToUnique, "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.")
			err.Info = bsoncore.NewDocumentBuilder().AppendArray("violations", ab.Build()).Build()
			return out, err
		}
		ix.Unique, ix.PrepareUnique = true, false
		out.UniqueNew = true
	}
	if ch.ForceNonUnique && old.Unique {
		ix.Unique = false
		out.ForceNonUniqueNew = true
	}
	n := c.copyMeta()
	n.Indexes[pos] = &ix
	o := cmdDoc("collMod", c.Name, "index", indexFlagsDoc(&ix, ch))
	if err := e.commitCollMod(c, n, o); err != nil {
		return out, err
	}
	return out, nil
}

// indexFlagsDoc is the collMod index document the oplog records.
func indexFlagsDoc(ix *index, ch IndexFlagChange) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("name", ix.Name)
	if ch.Hidden != nil {
		b.AppendBoolean("hidden", ix.Hidden)
	}
	if ch.PrepareUnique != nil {
		b.AppendBoolean("prepareUnique", *ch.PrepareUnique)
	}
	if ch.Unique {
		b.AppendBoolean("unique", true)
	}
	if ch.ForceNonUnique {
		b.AppendBoolean("forceNonUnique", true)
	}
	return b.Build()
}

// duplicateKeyGroups returns the _ids of the records of each key that
// several records share in ix, in key order.
func (e *Engine) duplicateKeyGroups(c *collection, ix *index) ([][]bsoncore.Value, error) {
	snap := e.db.NewSnapshot()
	defer snap.Close()
	r := snap.Reader()
	it, err := storage.NewIndexCursor(r, ix.ID, nil, nil, false)
	if err != nil {
		return nil, fmt.Errorf("unique conversion: %w", err)
	}
	if ix.InClustered {
		it.SetClustered()
	}
	defer it.Close()
	var (
		groups [][]bsoncore.Value
		prev   []byte
		rids   []uint64
		cks    [][]byte // clustered: the records' cluster keys, beside rids
		buf    []byte
	)
	flush := func() error {
		if len(rids) < 2 {
			return nil
		}
		ids := make([]bsoncore.Value, 0, len(rids))
		for i, rid := range rids {
			var ck []byte
			if c.Clustered {
				ck = cks[i]
			}
			v, _, found, err := getRecordRef(r, c, rid, ck, buf[:0])
			if err == nil && !found {
				err = storage.ErrNotFound
			}
			if err != nil {
				return fmt.Errorf("unique conversion: record %d: %w", rid, err)
			}
			buf = v
			id := bsoncore.Document(v).Lookup("_id")
			ids = append(ids, bsoncore.Value{Type: id.Type, Data: append([]byte(nil), id.Data...)})
		}
		groups = append(groups, ids)
		return nil
	}
	for ks, rid, _, ok := it.Next(); ok; ks, rid, _, ok = it.Next() {
		var ck []byte
		if c.Clustered {
			ck = append([]byte(nil), it.RecordKey()...)
		}
		if prev != nil && bytes.Equal(ks, prev) {
			rids, cks = append(rids, rid), append(cks, ck)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		prev = append(prev[:0], ks...)
		rids, cks = append(rids[:0], rid), append(cks[:0], ck)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return groups, it.Err()
}
