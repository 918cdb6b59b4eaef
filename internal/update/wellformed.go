package update

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// maxNesting bounds the depth wellFormed walks.
const maxNesting = 200

// wellFormed reports whether every value in doc can be read, so later
// accessors cannot panic on malformed input.
func wellFormed(doc bsoncore.Document, depth int) bool {
	if depth > maxNesting {
		return false
	}
	elems, err := doc.Elements()
	if err != nil {
		return false
	}
	for _, e := range elems {
		if e.Validate() != nil {
			return false
		}
		v := e.Value()
		ok := true
		switch v.Type {
		case bsoncore.TypeString:
			_, ok = v.StringValueOK()
		case bsoncore.TypeSymbol:
			_, ok = v.SymbolOK()
		case bsoncore.TypeJavaScript:
			_, ok = v.JavaScriptOK()
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			ok = wellFormed(bsoncore.Document(v.Data), depth+1)
		case bsoncore.TypeCodeWithScope:
			var scope bsoncore.Document
			_, scope, ok = v.CodeWithScopeOK()
			ok = ok && wellFormed(scope, depth+1)
		case bsoncore.TypeRegex:
			_, _, ok = v.RegexOK()
		case bsoncore.TypeDBPointer:
			_, _, ok = v.DBPointerOK()
		case bsoncore.TypeBinary:
			_, _, ok = v.BinaryOK()
		}
		if !ok {
			return false
		}
	}
	return true
}
