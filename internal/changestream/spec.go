package changestream

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// Spec is a $changeStream stage's options.
type Spec struct {
	// FullDocument is default, updateLookup, whenAvailable or required.
	FullDocument string
	// BeforeChange (fullDocumentBeforeChange) is off, whenAvailable or
	// required.
	BeforeChange string
	// Resume is the position to continue after (resumeAfter, startAfter,
	// or just before startAtOperationTime); nil: from now.
	Resume *Token
	// StartAfter: Resume came from startAfter, which may name an
	// invalidate event.
	StartAfter bool
	// AtTime: Resume came from startAtOperationTime.
	AtTime               bool
	AllChangesForCluster bool
	ShowExpandedEvents   bool
}

// ParseSpec parses {$changeStream: {...}} with mongod's errors.
func ParseSpec(v bsoncore.Value) (*Spec, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location50808, "$changeStream stage expects a document as argument")
	}
	s := &Spec{FullDocument: "default", BeforeChange: "off"}
	els, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "$changeStream: %v", err)
	}
	var resumeAfter, startAfter, startAt bool
	for _, el := range els {
		k, val := el.Key(), el.Value()
		switch k {
		case "fullDocument":
			s.FullDocument, err = enum(k, val, "default", "updateLookup", "whenAvailable", "required")
		case "fullDocumentBeforeChange":
			s.BeforeChange, err = enum(k, val, "off", "whenAvailable", "required")
		case "resumeAfter", "startAfter":
			var t Token
			t, err = ParseToken(val, k)
			if err == nil {
				s.Resume = &t
				if k == "resumeAfter" {
					resumeAfter = true
				} else {
					startAfter, s.StartAfter = true, true
				}
			}
		case "startAtOperationTime":
			sec, inc, ok := val.TimestampOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "BSON field '$changeStream.startAtOperationTime' is the wrong type '%s', expected type 'timestamp'", bsonutil.TypeName(val.Type))
			}
			startAt = true
			t := highWater(oplog.MakeTS(sec, inc) - 1)
			s.Resume, s.AtTime = &t, true
		case "allChangesForCluster":
			s.AllChangesForCluster, err = boolOpt(k, val)
		case "showExpandedEvents":
			s.ShowExpandedEvents, err = boolOpt(k, val)
		case "allowToRunOnConfigDB", "allowToRunOnSystemNS", "showSystemEvents", "showRawUpdateDescription", "showMigrationEvents":
			var on bool
			if on, err = boolOpt(k, val); err == nil && on {
				err = errs.New(errs.NotImplemented, "$changeStream option '%s' is not supported by Lode", k)
			}
		default:
			return nil, errs.New(errs.Location40415, "BSON field '$changeStream.%s' is an unknown field.", k)
		}
		if err != nil {
			return nil, err
		}
	}
	if resumeAfter && startAfter {
		return nil, errs.New(errs.Location50865, "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream stage")
	}
	if startAt && (resumeAfter || startAfter) {
		return nil, errs.New(errs.Location40674, "Only one type of resume option is allowed, but multiple were found.")
	}
	if resumeAfter && s.Resume.Invalidate() {
		return nil, errs.New(errs.InvalidResumeToken, "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification.")
	}
	return s, nil
}

func enum(k string, v bsoncore.Value, allowed ...string) (string, error) {
	s, ok := v.StringValueOK()
	if !ok {
		return "", errs.New(errs.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type 'string'", k, bsonutil.TypeName(v.Type))
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", errs.New(errs.BadValue, "Enumeration value '%s' for field '$changeStream.%s' is not a valid value.", s, k)
}

func boolOpt(k string, v bsoncore.Value) (bool, error) {
	b, ok := v.BooleanOK()
	if !ok {
		return false, errs.New(errs.TypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type 'bool'", k, bsonutil.TypeName(v.Type))
	}
	return b, nil
}
