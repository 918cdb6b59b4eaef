package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// genArg names a generic argument the dispatcher reads itself, before the
// handler runs: $db, maxTimeMS, the API version fields and the session
// fields.
type genArg uint8

const (
	argDB genArg = iota
	argMaxTimeMS
	argAPIVersion
	argAPIStrict
	argAPIDeprecationErrors
	argLsid
	argTxnNumber
	argAutocommit
	argStartTransaction
	argReadConcern
	argWriteConcern
	numGenArgs
)

// genArgNames are the field names of the genArgs, by genArg.
var genArgNames = [numGenArgs]string{
	argDB:                   "$db",
	argMaxTimeMS:            "maxTimeMS",
	argAPIVersion:           "apiVersion",
	argAPIStrict:            "apiStrict",
	argAPIDeprecationErrors: "apiDeprecationErrors",
	argLsid:                 "lsid",
	argTxnNumber:            "txnNumber",
	argAutocommit:           "autocommit",
	argStartTransaction:     "startTransaction",
	argReadConcern:          "readConcern",
	argWriteConcern:         "writeConcern",
}

// argPassed is scan's mark for one of the passedGenArgs.
const argPassed = numGenArgs + 1

// passedGenArgs are the generic arguments drivers send with most
// commands that the dispatcher does not read and no command refuses:
// scan does not count them among the others.
var passedGenArgs = []string{"$clusterTime", "$readPreference", "comment"}

// genArgs is where a command's generic arguments sit in its document,
// found in one pass, so that the dispatcher's checks (checkAPIParams,
// maxTimeMS, parseSessionArgs) do not each walk the command again.
type genArgs struct {
	// at is each argument's element offset in the command, 0 when
	// absent (a document's first element is at 4).
	at [numGenArgs]int32
	// ok is set when the pass ran: the command came validated from the
	// wire and names none of the arguments twice. Otherwise the checks
	// walk the command themselves, as they always did.
	ok bool
	// others counts the fields after the command's name that are none
	// of the genArgs: 0 means the command holds only its name and
	// arguments the dispatcher reads (onlyGenericArgs).
	others int32
}

// scanGenArgs finds the generic arguments of cmd, a document the wire
// layer validated. A repeated argument leaves g.ok unset: the walks of
// the checks then decide which occurrence counts, as before.
func (g *genArgs) scan(cmd bsoncore.Document) {
	if len(cmd) < 5 {
		return
	}
	rem := cmd[4 : len(cmd)-1]
	off := int32(4)
	for len(rem) > 0 {
		el, next, ok := bsoncore.ReadElement(rem)
		if !ok {
			return
		}
		a := numGenArgs
		switch string(el.KeyBytes()) {
		case "$db":
			a = argDB
		case "maxTimeMS":
			a = argMaxTimeMS
		case "apiVersion":
			a = argAPIVersion
		case "apiStrict":
			a = argAPIStrict
		case "apiDeprecationErrors":
			a = argAPIDeprecationErrors
		case "lsid":
			a = argLsid
		case "txnNumber":
			a = argTxnNumber
		case "autocommit":
			a = argAutocommit
		case "startTransaction":
			a = argStartTransaction
		case "readConcern":
			a = argReadConcern
		case "writeConcern":
			a = argWriteConcern
		case "$clusterTime", "$readPreference", "comment":
			a = argPassed
		}
		if a < numGenArgs {
			if g.at[a] != 0 {
				return
			}
			g.at[a] = off
		} else if a == numGenArgs && off > 4 {
			g.others++
		}
		off += int32(len(el))
		rem = next
	}
	g.ok = true
}

// value returns argument a of cmd, which scan read.
func (g *genArgs) value(cmd bsoncore.Document, a genArg) (bsoncore.Value, bool) {
	off := g.at[a]
	if off == 0 {
		return bsoncore.Value{}, false
	}
	el, _, ok := bsoncore.ReadElement(cmd[off:])
	if !ok {
		return bsoncore.Value{}, false
	}
	return el.Value(), true
}

// each calls fn for the arguments among as that cmd holds, in the order
// of the command document (so that the first bad one is the one
// reported, as a walk over the document reports it); fromSecond skips
// the command's name (its first element).
func (g *genArgs) each(cmd bsoncore.Document, fromSecond bool, fn func(a genArg, v bsoncore.Value) error, as ...genArg) error {
	var present [numGenArgs]genArg
	n := 0
	for _, a := range as {
		off := g.at[a]
		if off == 0 || (fromSecond && off == 4) {
			continue
		}
		// Insertion by offset: there are a handful at most.
		i := n
		for i > 0 && g.at[present[i-1]] > off {
			present[i] = present[i-1]
			i--
		}
		present[i] = a
		n++
	}
	for _, a := range present[:n] {
		v, _ := g.value(cmd, a)
		if err := fn(a, v); err != nil {
			return err
		}
	}
	return nil
}
