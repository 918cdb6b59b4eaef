package server

import (
	"context"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/query"
)

func init() {
	register(admin(cmdProfile, checkedBy(profileCheck), "profile"))
}

// profileNote is mongod's note when a filter is involved.
const profileNote = "When a filter expression is set, slowms and sampleRate are not used for profiling and slow-query log lines."

// profileArgs is a parsed profile command.
type profileArgs struct {
	level      int64
	slowms     *int64
	sampleRate *float64
	// filter: hasFilter with a nil doc means "unset".
	hasFilter bool
	filterDoc bsoncore.Document
	filter    *query.Filter
}

// parseProfile reads {profile: <level>, slowms?, sampleRate?, filter?}
// with mongod's checks.
func parseProfile(req *Request) (profileArgs, error) {
	var a profileArgs
	lv := req.Cmd.Index(0).Value()
	n, ok := asInt64(lv)
	if !ok {
		if f, isF := lv.DoubleOK(); isF {
			n, ok = int64(f), true
		}
	}
	if !ok {
		return a, wrongType(req.Name, "profile", lv, "long")
	}
	a.level = n
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "slowms":
			ms, err := argInt64(req.Name, k, v)
			if err != nil {
				return true, err
			}
			a.slowms = &ms
		case "sampleRate":
			f, ok := asFloat(v)
			if !ok {
				return true, wrongType(req.Name, k, v, "double")
			}
			a.sampleRate = &f
		case "filter":
			a.hasFilter = true
			switch {
			case v.Type == bsoncore.TypeEmbeddedDocument:
				f, err := query.Parse(v.Document())
				if err != nil {
					return true, errs.New(errs.BadValue, "%s", errs.As(err).Msg)
				}
				a.filter, a.filterDoc = f, append(bsoncore.Document(nil), v.Document()...)
			case v.Type == bsoncore.TypeString && v.StringValue() == "unset":
			default:
				return true, errs.New(errs.BadValue, "Expected an object, or the string 'unset'.")
			}
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return a, err
	}
	if a.sampleRate != nil && (*a.sampleRate < 0 || *a.sampleRate > 1 || math.IsNaN(*a.sampleRate)) {
		return a, errs.New(errs.BadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive")
	}
	return a, nil
}

// asFloat reads a numeric value as a float64.
func asFloat(v bsoncore.Value) (float64, bool) {
	if f, ok := v.DoubleOK(); ok {
		return f, true
	}
	if n, ok := asInt64(v); ok {
		return float64(n), true
	}
	return 0, false
}

// profileCheck is mongod's authorization of profile: enableProfiler on
// the database, or, to only read the settings, find on its
// system.profile.
func profileCheck(req *Request, g *auth.Grants) ([]need, error) {
	a, err := parseProfile(req)
	if err == nil && (a.level < 0 || a.level > 2) && a.slowms == nil && a.sampleRate == nil {
		read := []need{{res: auth.CollResource(req.DB, "system.profile"), acts: auth.Actions(auth.ActFind)}}
		if allAllowed(g, read) {
			return read, nil
		}
	}
	needs := []need{{res: auth.DBResource(req.DB), acts: auth.Actions(auth.ActEnableProfiler)}}
	if allAllowed(g, needs) {
		return needs, nil
	}
	return nil, errs.New(errs.Unauthorized, "unauthorized")
}

// cmdProfile reads and sets the profiler as mongod 7.0's profile
// command: the level (0 off, 1 operations slower than slowms, 2 all) and
// filter are per database; slowms and sampleRate are the server's, and
// also drive the slow-operation log. A level outside 0..2 (-1) only
// reads. The reply holds the previous settings.
func cmdProfile(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	a, err := parseProfile(req)
	if err != nil {
		return nil, err
	}
	if req.DB == "" {
		return nil, errs.New(errs.InvalidNamespace, "Invalid database name: ''")
	}
	o := s.obs
	o.profMu.Lock()
	old := o.prof[req.DB]
	o.profMu.Unlock()
	oldSlow, oldRate := o.slowMS.Load(), o.rate()
	b := bsoncore.NewDocumentBuilder().
		AppendInt32("was", int32(old.level)).
		AppendInt32("slowms", int32(oldSlow)).
		AppendDouble("sampleRate", oldRate)
	if old.filterDoc != nil {
		b.AppendDocument("filter", old.filterDoc)
	}
	if old.filterDoc != nil || a.filterDoc != nil {
		b.AppendString("note", profileNote)
	}
	readOnly := (a.level < 0 || a.level > 2) && !a.hasFilter
	if !readOnly {
		ps := old
		if a.level >= 0 && a.level <= 2 {
			ps.level = int(a.level)
		}
		if a.hasFilter {
			ps.filter, ps.filterDoc = a.filter, a.filterDoc
		}
		o.setProfile(req.DB, ps)
	}
	if a.slowms != nil {
		o.slowMS.Store(*a.slowms)
	}
	if a.sampleRate != nil {
		o.sampleRate.Store(math.Float64bits(*a.sampleRate))
	}
	if !readOnly || a.slowms != nil || a.sampleRate != nil {
		s.log.Info("Profiler settings changed", mongolog.KeyComponent, "COMMAND", mongolog.KeyID, 48742,
			"from", profileState(old, oldSlow, oldRate), "to", profileState(o.profile(req.DB), o.slowMS.Load(), o.rate()), "db", req.DB)
	}
	return b.Build(), nil
}

// profileState renders settings for the "Profiler settings changed" log.
func profileState(ps profileSetting, slowms int64, rate float64) mongolog.RawJSON {
	b := bsoncore.NewDocumentBuilder().AppendInt32("level", int32(ps.level)).AppendInt64("slowms", slowms).AppendDouble("sampleRate", rate)
	if ps.filterDoc != nil {
		b.AppendDocument("filter", ps.filterDoc)
	}
	return mongolog.RawJSON(extJSON(b.Build()))
}
