package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdSetDefaultRWConcern, requires(clusterNeeds(auth.ActSetDefaultRWConcern)), "setDefaultRWConcern").takingWriteConcern())
}

// rwDefaults is the cluster-wide default read and write concern that
// setDefaultRWConcern sets (Server.rw; the zero value is the implicit
// defaults).
type rwDefaults struct {
	mu sync.Mutex
	wc bsoncore.Document // nil: the implicit default {w: 1}
	// wcSet: wc is set, read without mu by commands without a write
	// concern of their own (runSession).
	wcSet   atomic.Bool
	rc      bsoncore.Document // nil: the implicit default {level: "local"}
	updated time.Time
}

func (s *Server) rwDefaults() *rwDefaults { return &s.rw }

// defaultWriteConcern returns the write concern a command without one
// gets: the server-wide default when one was set.
func defaultWriteConcern(req *Request) writeConcern {
	if req.conn == nil || req.conn.s == nil {
		return writeConcern{}
	}
	d := req.conn.s.rwDefaults()
	d.mu.Lock()
	wcDoc := d.wc
	d.mu.Unlock()
	if wcDoc == nil {
		return writeConcern{}
	}
	fake := &Request{Name: req.Name, Cmd: bsoncore.NewDocumentBuilder().
		AppendInt32(req.Name, 1).AppendDocument("writeConcern", wcDoc).Build()}
	wc, err := parseWriteConcern(fake)
	if err != nil {
		return writeConcern{}
	}
	return wc
}

// cmdSetDefaultRWConcern sets the default write and/or read concern.
func cmdSetDefaultRWConcern(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "setDefaultRWConcern may only be run against the admin database.")
	}
	var wc, rc bsoncore.Document
	hasWC, hasRC := false, false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "defaultWriteConcern":
			d, ok := v.DocumentOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "object")
			}
			wc, hasWC = d, true
			return true, nil
		case "defaultReadConcern":
			d, ok := v.DocumentOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "object")
			}
			if lv, err := d.LookupErr("level"); err == nil {
				switch lv.StringValue() {
				case "local", "available", "majority":
				default:
					return true, errs.New(errs.BadValue, "level: %s is not an allowed default read concern level", lv.String())
				}
			}
			rc, hasRC = d, true
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if !hasWC && !hasRC {
		return nil, errs.New(errs.BadValue, "At least one of the \"defaultReadConcern\" or \"defaultWriteConcern\" fields must be present")
	}
	if hasWC {
		if len(wc) <= 5 {
			return nil, errs.New(errs.BadValue, "Unsetting the default write concern is not supported")
		}
		// Validate it as a write concern; w:0 cannot be a default.
		fake := &Request{Name: req.Name, Cmd: bsoncore.NewDocumentBuilder().
			AppendInt32(req.Name, 1).AppendDocument("writeConcern", wc).Build()}
		p, err := parseWriteConcern(fake)
		if err != nil {
			return nil, err
		}
		if p.w0 {
			return nil, errs.New(errs.BadValue, "The global default write concern cannot be set to { w: 0 }")
		}
	}
	d := s.rwDefaults()
	d.mu.Lock()
	if hasWC {
		d.wc = append(bsoncore.Document(nil), wc...)
		d.wcSet.Store(true)
	}
	if hasRC {
		if len(rc) <= 5 {
			d.rc = nil
		} else {
			d.rc = append(bsoncore.Document(nil), rc...)
		}
	}
	d.updated = time.Now()
	d.mu.Unlock()
	return rwDefaultsReply(d), nil
}

// rwDefaultsReply renders the defaults as getDefaultRWConcern does.
func rwDefaultsReply(d *rwDefaults) bsoncore.Document {
	d.mu.Lock()
	defer d.mu.Unlock()
	b := bsoncore.NewDocumentBuilder()
	rc, rcSource := d.rc, "global"
	if rc == nil {
		rc, rcSource = bsoncore.NewDocumentBuilder().AppendString("level", "local").Build(), "implicit"
	}
	wc, wcSource := d.wc, "global"
	if wc == nil {
		wc, wcSource = bsoncore.NewDocumentBuilder().AppendInt32("w", 1).AppendInt32("wtimeout", 0).Build(), "implicit"
	}
	b.AppendDocument("defaultReadConcern", rc)
	b.AppendDocument("defaultWriteConcern", wc)
	if !d.updated.IsZero() {
		b.AppendDateTime("updateWallClockTime", d.updated.UnixMilli())
		b.AppendDateTime("localUpdateWallClockTime", d.updated.UnixMilli())
	}
	b.AppendString("defaultWriteConcernSource", wcSource)
	b.AppendString("defaultReadConcernSource", rcSource)
	return b.Build()
}
