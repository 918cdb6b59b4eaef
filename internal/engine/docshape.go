package engine

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// MaxStorageDepth is mongod's BSONDepth::getMaxDepthForUserStorage(): no
// element of a stored document may sit inside more than this many
// documents and arrays, the document itself counting as the first.
const MaxStorageDepth = 180

// minNestBytes is the size of the smallest container holding one element
// directly (length, a one-byte type, an empty name, a null value, EOO);
// each further level of nesting adds as much. A container smaller than
// minNestBytes*(levels+1) cannot hold an element levels below it, which
// lets the depth check skip every ordinary document without reading it.
const minNestBytes = 7

// tooDeep reports whether the container c, whose elements sit at the
// given level (the top-level document's elements are at level 1), holds
// an element deeper than MaxStorageDepth. An empty container is no
// deeper than its own element, as in mongod.
func tooDeep(c []byte, level int) bool {
	if len(c) < minNestBytes*(MaxStorageDepth+2-level) {
		return false
	}
	if level > MaxStorageDepth {
		return len(c) > 5
	}
	end := len(c) - 1
	for i := 4; i < end; {
		el, ok := bsonutil.ElementAt(c[:end], i)
		if !ok {
			return false // malformed: the validating pass reports it
		}
		if el.Type == bsoncore.TypeEmbeddedDocument || el.Type == bsoncore.TypeArray {
			if tooDeep(c[el.NameEnd+1:el.End], level+1) {
				return true
			}
		}
		i = el.End
	}
	return false
}

// insertDepthErr is fixDocumentForInsert's error for a document nested
// deeper than MaxStorageDepth.
func insertDepthErr() *errs.Error {
	return errs.New(errs.Overflow, "cannot insert document because it exceeds %d levels of nesting", MaxStorageDepth)
}

// checkUpdated applies mongod's storage validation of an update's result
// (storage_validation::scanDocument) to what Lode can produce: one _id
// (BadValue), and no element deeper than MaxStorageDepth (Overflow; the
// levels inside an _id document count from its own fields).
func checkUpdated(doc bsoncore.Document) error {
	seen := false
	end := len(doc) - 1
	if end < 4 {
		return nil
	}
	deep := len(doc) >= minNestBytes*(MaxStorageDepth+1)
	for i := 4; i < end; {
		el, ok := bsonutil.ElementAt(doc[:end], i)
		if !ok {
			return nil
		}
		name := doc[el.Name:el.NameEnd]
		if string(name) == "_id" {
			if seen {
				return errs.New(errs.BadValue, "Can't have multiple _id fields in one document")
			}
			seen = true
		}
		if deep && (el.Type == bsoncore.TypeEmbeddedDocument || el.Type == bsoncore.TypeArray) {
			level := 2
			if string(name) == "_id" {
				level = 1
			}
			if tooDeep(doc[el.NameEnd+1:el.End], level) {
				return errs.New(errs.Overflow, "Document exceeds maximum nesting depth of %d", MaxStorageDepth)
			}
		}
		i = el.End
	}
	return nil
}
