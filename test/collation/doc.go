// Package collation_test checks collations end to end through the Go
// driver: the examples of MongoDB's collation reference pages with their
// documented results, collated indexes, collection default collations and
// the errors of invalid collation documents.
package collation_test
