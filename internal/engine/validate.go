package engine

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/storage"
)

// maxValidateDetails bounds the per-entry problems Validate lists.
const maxValidateDetails = 100

// IndexEntryProblem is one index entry without its record (extra) or one
// record key without its index entry (missing).
type IndexEntryProblem struct {
	Index    string
	RecordID uint64
	// Key is the index keystring, hex-encoded.
	Key string
}

// IndexValidation is the outcome for one index.
type IndexValidation struct {
	Name  string
	Keys  int64
	Valid bool
}

// ValidateResult is the report of the validate command.
type ValidateResult struct {
	UUID              [16]byte
	NRecords          int64
	NInvalidDocuments int64
	Indexes           []IndexValidation
	Extra, Missing    []IndexEntryProblem
	NExtra, NMissing  int64
	CorruptRecords    []uint64
	Errors, Warnings  []string
	Valid             bool
}

// Validate checks db.coll on a snapshot: every record is valid BSON, every
// index key a record produces has its index entry, and every index entry
// belongs to a record that produces it. It takes no lock.
func (e *Engine) Validate(ctx context.Context, db, coll string) (ValidateResult, error) {
	var res ValidateResult
	if err := e.checkOpen(); err != nil {
		return res, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return res, errs.New(errs.NamespaceNotFound, "Collection '%s.%s' does not exist to validate.", db, coll)
	}
	res.UUID = c.UUID
	psnap := e.db.NewSnapshot()
	defer psnap.Close()
	snap := psnap.Reader()
	cur, err := openRecords(snap, c)
	if err != nil {
		return res, err
	}
	defer cur.Close()
	found := make([]int64, len(c.Indexes))
	missing := make([]int64, len(c.Indexes))
	var g indexkey.Generator
	for crid, raw, ok := cur.Next(); ok; crid, raw, ok = cur.Next() {
		rid := uint64(crid)
		if err := ctx.Err(); err != nil {
			return res, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		}
		res.NRecords++
		doc := bsoncore.Document(raw)
		if err := doc.Validate(); err != nil {
			res.NInvalidDocuments++
			if len(res.CorruptRecords) < maxValidateDetails {
				res.CorruptRecords = append(res.CorruptRecords, rid)
			}
			continue
		}
		for i, ix := range c.Indexes {
			if ix.Clustered {
				continue // the records are its entries
			}
			keys, _, skip, err := g.Keys(ix, doc)
			if err != nil {
				res.Errors = append(res.Errors, fmt.Sprintf("record %d: index %s: %v", rid, ix.Name, err))
				continue
			}
			if skip {
				continue
			}
			for _, ks := range keys {
				ok, err := storage.HasIndexEntry(snap, ix.ID, ks, storage.RecordID(rid))
				if err != nil {
					return res, err
				}
				if ok {
					found[i]++
					continue
				}
				missing[i]++
				res.NMissing++
				if len(res.Missing) < maxValidateDetails {
					res.Missing = append(res.Missing, IndexEntryProblem{Index: ix.Name, RecordID: rid, Key: fmt.Sprintf("%x", ks)})
				}
			}
		}
	}
	if err := cur.Err(); err != nil {
		return res, err
	}
	for i, ix := range c.Indexes {
		n, extra, err := e.validateIndexEntries(snap, c, ix, found[i], &res)
		if err != nil {
			return res, err
		}
		res.NExtra += extra
		res.Indexes = append(res.Indexes, IndexValidation{Name: ix.Name, Keys: n, Valid: extra == 0 && missing[i] == 0})
	}
	if res.NInvalidDocuments > 0 {
		res.Errors = append(res.Errors, fmt.Sprintf("Detected %d invalid documents.", res.NInvalidDocuments))
	}
	if res.NMissing > 0 {
		res.Errors = append(res.Errors, fmt.Sprintf("Detected %d missing index entries.", res.NMissing))
	}
	if res.NExtra > 0 {
		res.Errors = append(res.Errors, fmt.Sprintf("Detected %d extra index entries.", res.NExtra))
	}
	res.Valid = len(res.Errors) == 0
	return res, nil
}

// validateIndexEntries counts ix's entries. Entries beyond the found ones
// that records produce are extra; it lists the first of them by checking
// each entry's record.
func (e *Engine) validateIndexEntries(snap storage.Reader, c *collection, ix *index, found int64, res *ValidateResult) (n, extra int64, err error) {
	if ix.Clustered {
		return res.NRecords, 0, nil
	}
	ic, err := storage.NewIndexCursor(snap, ix.ID, nil, nil, false)
	if err != nil {
		return 0, 0, err
	}
	if ix.InClustered {
		ic.SetClustered()
	}
	for _, _, _, ok := ic.Next(); ok; _, _, _, ok = ic.Next() {
		n++
	}
	err = ic.Err()
	ic.Close()
	if err != nil {
		return 0, 0, err
	}
	extra = n - found
	if extra <= 0 {
		return n, 0, nil
	}
	// Locate the extra entries for the report.
	ic, err = storage.NewIndexCursor(snap, ix.ID, nil, nil, false)
	if err != nil {
		return n, extra, err
	}
	if ix.InClustered {
		ic.SetClustered()
	}
	defer ic.Close()
	var g indexkey.Generator
	var buf []byte
	for ks, rid, _, ok := ic.Next(); ok && len(res.Extra) < maxValidateDetails; ks, rid, _, ok = ic.Next() {
		var present bool
		buf, _, present, err = getRecordRef(snap, c, rid, ic.RecordKey(), buf[:0])
		if err != nil {
			return n, extra, err
		}
		belongs := false
		if present {
			keys, _, skip, kerr := g.Keys(ix, buf)
			if kerr == nil && !skip {
				for _, k := range keys {
					if string(k) == string(ks) {
						belongs = true
						break
					}
				}
			}
		}
		if !belongs {
			res.Extra = append(res.Extra, IndexEntryProblem{Index: ix.Name, RecordID: rid, Key: fmt.Sprintf("%x", ks)})
		}
	}
	return n, extra, ic.Err()
}
