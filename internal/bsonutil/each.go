package bsonutil

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ErrMalformed is returned by EachElement for a document whose framing or
// elements are not valid BSON.
var ErrMalformed = errors.New("malformed BSON document")

// EachElement calls fn with each top-level element of doc, in order,
// validating each as bsoncore.Document.Elements does but without building
// a slice: the hot command paths (argument parsing, _id checks) run it
// once per request. It stops at fn's first error and returns it.
func EachElement(doc []byte, fn func(el bsoncore.Element) error) error {
	return walk(doc, true, fn)
}

// EachElementTrusted is EachElement for a document already validated
// whole (a command the wire layer checked): it does not validate the
// elements again.
func EachElementTrusted(doc []byte, fn func(el bsoncore.Element) error) error {
	return walk(doc, false, fn)
}

// CountElements returns the number of top-level elements of doc, reading
// only their framing (EachElement validates them).
func CountElements(doc []byte) (int, error) {
	n := 0
	err := walk(doc, false, func(bsoncore.Element) error { n++; return nil })
	return n, err
}

// walk reads doc's framing and hands each element to fn, validating it
// first when validate is set.
func walk(doc []byte, validate bool, fn func(el bsoncore.Element) error) error {
	length, rem, ok := bsoncore.ReadLength(doc)
	if !ok || length < 5 || int(length) > len(doc) || doc[length-1] != 0 {
		return ErrMalformed
	}
	rem = rem[:length-5] // without the length and the trailing zero
	for len(rem) > 0 {
		el, next, ok := bsoncore.ReadElement(rem)
		if !ok {
			return ErrMalformed
		}
		if validate {
			if err := el.Validate(); err != nil {
				return err
			}
		}
		if err := fn(el); err != nil {
			return err
		}
		rem = next
	}
	return nil
}
