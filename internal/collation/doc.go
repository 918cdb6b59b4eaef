// Package collation implements MongoDB collations: parsing and validating
// a collation document as mongod 7.0 does, normalising it to the full
// specification mongod reports, and comparing strings under it.
//
// Comparison is built on golang.org/x/text/collate (CLDR root collation
// plus the CLDR tailorings x/text ships). A Collator turns a string into a
// sort key whose byte order is the collation's order; Transform rewrites
// every string inside a BSON value into such a key, so that the binary
// comparison of transformed values (bsonutil.Compare, keystring) is the
// comparison under the collation. caseFirst and a case level below
// strength 3, which x/text lacks, are built into the key here
// (casekey.go); other options x/text does not honour are refused with
// NotImplemented rather than accepted and ignored; see
// docs/compatibility.md.
package collation
