// Package mongolog writes log/slog records in mongod's structured log
// format (MongoDB 4.4+): one JSON object per line,
//
//	{"t":{"$date":"2026-11-28T04:25:21.123+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn12","msg":"Slow query","attr":{...}}
//
// The slog attributes "component" (c), "id" and "ctx" fill the header
// fields when present (c defaults to "-" and ctx to "main", as mongod's
// do); all other attributes go into attr, groups as nested objects. A
// RawJSON value is written as it is (the server passes documents already
// rendered as relaxed Extended JSON).
//
// Log ids: mongod's own ids are used where Lode logs the same event
// (51803 Slow query, 23016 Waiting for connections, 22943 Connection
// accepted, 22944 Connection ended, 20249 Authentication failed, 5286306
// Successfully authenticated, 23377
// Received signal, 20565 Now exiting, 48742 Profiler settings changed). Lode's own messages without a
// mongod counterpart use ids from LodeIDBase (9_100_000) upward, a range
// mongod's 7-digit ids do not use today; 0 means none was given.
package mongolog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Component, id and ctx attribute keys lifted into the record header.
const (
	KeyComponent = "component"
	KeyID        = "id"
	KeyCtx       = "ctx"
	// KeyTruncated and KeySize, given at the top level, are written beside
	// attr as mongod writes them for truncated attributes.
	KeyTruncated = "truncated"
	KeySize      = "size"
)

// LodeIDBase is the first of the log ids Lode uses for its own messages.
const LodeIDBase = 9_100_000

// mongod log ids Lode reuses for the same events.
const (
	IDSlowQuery          = 51803
	IDWaitingConnections = 23016
	IDReceivedSignal     = 23377
	IDNowExiting         = 20565
	IDShuttingDown       = 23138
	IDConnectionAccepted = 22943
	IDConnectionEnded    = 22944
	IDAuthFailed         = 20249
	IDAuthSucceeded      = 5286306 // "Successfully authenticated"
	IDShutdownCommand    = 4695400 // "Terminating via shutdown command"
	IDLogRotate          = 23166   // "Log rotation initiated"
)

// Lode's own log ids (LodeIDBase and up).
const (
	IDLodeStarted      = LodeIDBase + 1
	IDShutdownComplete = LodeIDBase + 2
	IDServerStopped    = LodeIDBase + 3
	// IDStorageFatal is the fatal line of a storage failure (disk full,
	// EIO) before lode serve exits; mongod logs a fatal assertion (23089).
	IDStorageFatal = LodeIDBase + 4
	// IDFileLimit reports the open-file limit and the connections it
	// allows (mongod warns about a low limit among its startup warnings).
	IDFileLimit = LodeIDBase + 5
	// IDTLSEnabled describes the TLS setup at start.
	IDTLSEnabled = LodeIDBase + 6
	// IDClientGone is an operation interrupted because its client
	// disconnected.
	IDClientGone = LodeIDBase + 7
	// IDConnectionClosedEarly is a connection closed by the server: a
	// message that did not arrive in time or could not be read.
	IDConnectionClosedEarly = LodeIDBase + 8
)

// RawJSON is an attribute value already encoded as JSON; the JSON handler
// writes it as it is, the text handler as a string.
type RawJSON []byte

// LogValue implements slog.LogValuer for the handlers that are not ours.
func (r RawJSON) LogValue() slog.Value { return slog.StringValue(string(r)) }

// Handler is a slog.Handler writing mongod's JSON log lines.
type Handler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	// pre are attributes added by WithAttrs, already lifted or encoded;
	// groups the open groups.
	comp, ctx string
	id        int64
	pre       []slog.Attr
	groups    []string
}

// NewHandler returns a Handler writing to w records at level or above
// (nil: info).
func NewHandler(w io.Writer, level slog.Leveler) *Handler {
	if level == nil {
		level = slog.LevelInfo
	}
	return &Handler{mu: new(sync.Mutex), w: w, level: level}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	h2.pre = append([]slog.Attr(nil), h.pre...)
	for _, a := range as {
		if len(h.groups) == 0 && h2.lift(a) {
			continue
		}
		h2.pre = append(h2.pre, nest(h.groups, a))
	}
	return &h2
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.groups = append(append([]string(nil), h.groups...), name)
	return &h2
}

// nest wraps a in the open groups.
func nest(groups []string, a slog.Attr) slog.Attr {
	for i := len(groups) - 1; i >= 0; i-- {
		a = slog.Attr{Key: groups[i], Value: slog.GroupValue(a)}
	}
	return a
}

// lift takes the header attributes; it reports whether a was one.
func (h *Handler) lift(a slog.Attr) bool { return liftHeader(a, &h.comp, &h.ctx, &h.id) }

// liftHeader stores a in comp, ctx or id when it is one of the header
// attributes (component, ctx, an integer id) and reports whether it was.
func liftHeader(a slog.Attr, comp, ctx *string, id *int64) bool {
	switch a.Key {
	case KeyComponent:
		*comp = a.Value.Resolve().String()
	case KeyCtx:
		*ctx = a.Value.Resolve().String()
	case KeyID:
		v := a.Value.Resolve()
		switch v.Kind() {
		case slog.KindInt64:
			*id = v.Int64()
		case slog.KindUint64:
			*id = int64(v.Uint64())
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// Severity renders a slog level as mongod's s field: F (above error), E,
// W, I, and D1..D5 for debug levels (slog.LevelDebug is D1, each level
// below it one more).
func Severity(l slog.Level) string {
	switch {
	case l > slog.LevelError:
		return "F"
	case l >= slog.LevelError:
		return "E"
	case l >= slog.LevelWarn:
		return "W"
	case l >= slog.LevelInfo:
		return "I"
	}
	d := int(slog.LevelDebug-l) + 1
	d = max(1, min(d, 5))
	return "D" + strconv.Itoa(d)
}

// Handle implements slog.Handler.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	hd := *h
	var attrs, tail []slog.Attr
	r.Attrs(func(a slog.Attr) bool {
		if len(h.groups) == 0 && hd.lift(a) {
			return true
		}
		if len(h.groups) == 0 && (a.Key == KeyTruncated || a.Key == KeySize) {
			tail = append(tail, a)
			return true
		}
		attrs = append(attrs, a)
		return true
	})
	if len(h.groups) > 0 && len(attrs) > 0 {
		attrs = []slog.Attr{nestAttrs(h.groups, attrs)}
	}
	buf := bytes.NewBuffer(make([]byte, 0, 256))
	t := r.Time
	if t.IsZero() {
		t = time.Now()
	}
	buf.WriteString(`{"t":{"$date":"`)
	buf.WriteString(t.Format("2006-01-02T15:04:05.000-07:00"))
	buf.WriteString(`"},"s":"`)
	buf.WriteString(Severity(r.Level))
	buf.WriteString(`","c":`)
	comp := hd.comp
	if comp == "" {
		comp = "-"
	}
	writeString(buf, comp)
	buf.WriteString(`,"id":`)
	buf.WriteString(strconv.FormatInt(hd.id, 10))
	buf.WriteString(`,"ctx":`)
	ctx := hd.ctx
	if ctx == "" {
		ctx = "main"
	}
	writeString(buf, ctx)
	buf.WriteString(`,"msg":`)
	writeString(buf, r.Message)
	all := append(append([]slog.Attr(nil), h.pre...), attrs...)
	if len(all) > 0 {
		buf.WriteString(`,"attr":`)
		writeAttrs(buf, all)
	}
	for _, a := range tail {
		buf.WriteByte(',')
		writeString(buf, a.Key)
		buf.WriteByte(':')
		writeValue(buf, a.Value)
	}
	buf.WriteString("}\n")
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(buf.Bytes())
	return err
}

// nestAttrs wraps attrs in the open groups (the innermost holding them).
func nestAttrs(groups []string, attrs []slog.Attr) slog.Attr {
	a := slog.Attr{Key: groups[len(groups)-1], Value: slog.GroupValue(attrs...)}
	for i := len(groups) - 2; i >= 0; i-- {
		a = slog.Attr{Key: groups[i], Value: slog.GroupValue(a)}
	}
	return a
}

// writeAttrs writes attrs as a JSON object; a later attribute of the same
// key is kept beside the earlier (JSON readers keep the last).
func writeAttrs(buf *bytes.Buffer, attrs []slog.Attr) {
	buf.WriteByte('{')
	n := 0
	for _, a := range attrs {
		v := a.Value
		if v.Kind() == slog.KindGroup && a.Key == "" {
			// An inlined group.
			for _, ga := range v.Group() {
				if n > 0 {
					buf.WriteByte(',')
				}
				writeString(buf, ga.Key)
				buf.WriteByte(':')
				writeValue(buf, ga.Value)
				n++
			}
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, a.Key)
		buf.WriteByte(':')
		writeValue(buf, v)
		n++
	}
	buf.WriteByte('}')
}

func writeValue(buf *bytes.Buffer, v slog.Value) {
	if v.Kind() == slog.KindLogValuer {
		if raw, ok := v.Any().(RawJSON); ok {
			if json.Valid(raw) {
				buf.Write(raw)
			} else {
				writeString(buf, string(raw))
			}
			return
		} else {
			v = v.Resolve()
		}
	}
	switch v.Kind() {
	case slog.KindString:
		writeString(buf, v.String())
	case slog.KindInt64:
		buf.WriteString(strconv.FormatInt(v.Int64(), 10))
	case slog.KindUint64:
		buf.WriteString(strconv.FormatUint(v.Uint64(), 10))
	case slog.KindFloat64:
		f := v.Float64()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			writeString(buf, strconv.FormatFloat(f, 'g', -1, 64))
		} else {
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case slog.KindBool:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case slog.KindDuration:
		// mongod logs durations as numbers with the unit in the key.
		buf.WriteString(strconv.FormatInt(v.Duration().Milliseconds(), 10))
	case slog.KindTime:
		buf.WriteString(`{"$date":"`)
		buf.WriteString(v.Time().Format("2006-01-02T15:04:05.000-07:00"))
		buf.WriteString(`"}`)
	case slog.KindGroup:
		writeAttrs(buf, v.Group())
	case slog.KindAny:
		switch x := v.Any().(type) {
		case RawJSON:
			if json.Valid(x) {
				buf.Write(x)
			} else {
				writeString(buf, string(x))
			}
		case error:
			writeString(buf, x.Error())
		case fmt.Stringer:
			writeString(buf, x.String())
		default:
			b, err := json.Marshal(x)
			if err != nil {
				writeString(buf, fmt.Sprint(x))
			} else {
				buf.Write(b)
			}
		}
	default:
		writeString(buf, v.String())
	}
}

// writeString writes s as a JSON string.
func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case c < 0x20:
				switch c {
				case '\n':
					buf.WriteString(`\n`)
				case '\t':
					buf.WriteString(`\t`)
				case '\r':
					buf.WriteString(`\r`)
				default:
					fmt.Fprintf(buf, `\u%04x`, c)
				}
			default:
				buf.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(`\ufffd`)
		} else {
			buf.WriteString(s[i : i+size])
		}
		i += size
	}
	buf.WriteByte('"')
}
