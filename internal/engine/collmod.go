package engine

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/storage"
)

// ExpireAfterChange is the outcome of collMod's index.expireAfterSeconds.
type ExpireAfterChange struct {
	// Old is nil when the index was not a TTL index before.
	Old *int64
	New int64
}

// SetExpireAfterSeconds changes the expireAfterSeconds of the index of
// db.coll named name, or (when name is empty) whose key pattern is key.
// A single-field non-TTL index becomes a TTL index, as in MongoDB 7.0.
func (e *Engine) SetExpireAfterSeconds(db, coll, name string, key bsoncore.Document, secs int64) (ExpireAfterChange, error) {
	var out ExpireAfterChange
	c, pos, err := e.lockIndexForCollMod(db, coll, name, key)
	if err != nil {
		return out, err
	}
	defer c.state.mu.Unlock()
	old := c.Indexes[pos]
	if old.IsID() {
		return out, errs.New(errs.InvalidOptions, "the _id field does not support TTL indexes")
	}
	if len(old.Fields) != 1 {
		return out, errs.New(errs.InvalidOptions, "TTL indexes are single-field indexes, compound indexes do not support TTL")
	}
	if secs < 0 {
		return out, errs.New(errs.InvalidOptions, "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number")
	}
	if old.HashedField() >= 0 {
		return out, errs.New(errs.NotImplemented, "a TTL on a hashed index is not supported by Lode (index %s)", old.Name)
	}
	if old.TTL != nil {
		v := *old.TTL
		out.Old = &v
	}
	out.New = secs
	n := c.copyMeta()
	ix := *old
	ix.TTL = &secs
	n.Indexes[pos] = &ix
	o := cmdDoc("collMod", c.Name, "index", cmdDoc("name", ix.Name, "expireAfterSeconds", secs))
	if err := e.commitCollMod(c, n, o); err != nil {
		return out, err
	}
	return out, nil
}

// SetChangeStreamImages turns changeStreamPreAndPostImages on or off for
// db.coll (collMod): while on, every update, replace and delete keeps the
// document before and after it beside its oplog entry.
func (e *Engine) SetChangeStreamImages(db, coll string, enabled bool) error {
	c, err := e.lockCollForCollMod(db, coll)
	if err != nil {
		return err
	}
	defer c.state.mu.Unlock()
	n := c.copyMeta()
	setting := bsoncore.NewDocumentBuilder().AppendBoolean("enabled", enabled).Build()
	b := bsoncore.NewDocumentBuilder()
	if els, err := c.Options.Elements(); err == nil {
		for _, el := range els {
			if el.Key() != "changeStreamPreAndPostImages" {
				b.AppendValue(el.Key(), el.Value())
			}
		}
	}
	b.AppendDocument("changeStreamPreAndPostImages", setting)
	n.Options = b.Build()
	n.images = enabled
	o := cmdDoc("collMod", c.Name, "changeStreamPreAndPostImages", setting)
	if err := e.commitCollMod(c, n, o); err != nil {
		return err
	}
	return nil
}

// SetValidation changes the validator, validationLevel and
// validationAction of db.coll (collMod): fields holds the ones given,
// which replace the stored ones. A validator of {} removes validation.
func (e *Engine) SetValidation(db, coll string, fields bsoncore.Document) error {
	c, err := e.lockCollForCollMod(db, coll)
	if err != nil {
		return err
	}
	defer c.state.mu.Unlock()
	b := bsoncore.NewDocumentBuilder()
	if els, err := c.Options.Elements(); err == nil {
		for _, el := range els {
			if _, err := fields.LookupErr(el.Key()); err != nil {
				b.AppendValue(el.Key(), el.Value())
			}
		}
	}
	els, _ := fields.Elements()
	for _, el := range els {
		b.AppendValue(el.Key(), el.Value())
	}
	opts := b.Build()
	v, err := parseValidator("collMod", opts)
	if err != nil {
		return err
	}
	if err := checkValidatorNamespace(db, coll, fields); err != nil {
		return err
	}
	n := c.copyMeta()
	n.Options = opts
	n.validator = v
	ob := bsoncore.NewDocumentBuilder().AppendString("collMod", c.Name)
	for _, el := range els {
		ob.AppendValue(el.Key(), el.Value())
	}
	if err := e.commitCollMod(c, n, ob.Build()); err != nil {
		return err
	}
	return nil
}

// TouchCollMod is a collMod that changes nothing: mongod still checks
// that the collection exists and logs the command, which change streams
// with showExpandedEvents report as a modify event.
func (e *Engine) TouchCollMod(db, coll string) error {
	c, err := e.lockCollForCollMod(db, coll)
	if err != nil {
		return err
	}
	defer c.state.mu.Unlock()
	return e.commitLogged(e.db.NewBatch(), e.commandEntry(c.DB, &c.UUID, cmdDoc("collMod", c.Name))...)
}

// lockCollForCollMod locks db.coll, which must exist, for a collMod; the
// caller unlocks c.state.mu.
func (e *Engine) lockCollForCollMod(db, coll string) (*collection, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	c, err := e.lockColl(db, coll, false)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errs.New(errs.NamespaceNotFound, "ns does not exist: %s.%s", db, coll)
	}
	return c, nil
}

// commitCollMod writes n, the changed metadata of the locked c, with the
// collMod oplog entry o in one batch, then publishes it.
func (e *Engine) commitCollMod(c, n *collection, o bsoncore.Document) error {
	b := e.db.NewBatch()
	if err := storage.SetCollectionEntry(b, n.ID, encodeCollection(n)); err != nil {
		b.Close()
		return fmt.Errorf("collMod %s: %w", c.NS(), err)
	}
	if err := e.commitLogged(b, e.commandEntry(c.DB, &c.UUID, o)...); err != nil {
		return err
	}
	e.publish(n)
	return nil
}

// lockIndexForCollMod locks db.coll for a collMod of one of its indexes,
// the one named name or (when name is empty) whose key pattern is key,
// and returns the collection (its writer lock held) and the index's
// position.
func (e *Engine) lockIndexForCollMod(db, coll, name string, key bsoncore.Document) (*collection, int, error) {
	c, err := e.lockCollForCollMod(db, coll)
	if err != nil {
		return nil, 0, err
	}
	for i, ix := range c.Indexes {
		if (name != "" && ix.Name == name) || (name == "" && keyEqual(ix.Key, key)) {
			return c, i, nil
		}
	}
	c.state.mu.Unlock()
	what := name
	if what == "" {
		what = bsonutil.FormatDoc(key, msgStyle)
	}
	return nil, 0, errs.New(errs.IndexNotFound, "cannot find index %s for ns %s", what, c.NS())
}
