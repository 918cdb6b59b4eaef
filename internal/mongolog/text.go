package mongolog

import (
	"context"
	"log/slog"
)

// TextHandler is log/slog's text format with mongod's header on every
// line: component, id and ctx end the line (before an open group's
// attributes), once each (a later value replaces an earlier one, as in
// the JSON format), with the JSON format's defaults ("-", 0 and "main")
// when a line gives none.
type TextHandler struct {
	inner     slog.Handler
	comp, ctx string
	id        int64
	grouped   bool        // a group is open: header keys are ordinary attributes
	pre       []slog.Attr // WithAttrs' other attributes, written after the header
}

// NewTextHandler returns a TextHandler writing through inner, a
// slog.TextHandler.
func NewTextHandler(inner slog.Handler) *TextHandler { return &TextHandler{inner: inner} }

// Enabled implements slog.Handler.
func (h *TextHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

// take records a header attribute; it reports whether a was one.
func (h *TextHandler) take(a slog.Attr) bool {
	return !h.grouped && liftHeader(a, &h.comp, &h.ctx, &h.id)
}

// WithAttrs implements slog.Handler.
func (h *TextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	if c.grouped {
		c.inner = h.inner.WithAttrs(as)
		return &c
	}
	c.pre = append([]slog.Attr(nil), h.pre...)
	for _, a := range as {
		if !c.take(a) {
			c.pre = append(c.pre, a)
		}
	}
	return &c
}

// WithGroup implements slog.Handler.
func (h *TextHandler) WithGroup(name string) slog.Handler {
	c := *h
	inner := h.inner
	if !h.grouped {
		// What comes before the group: the attributes, then the header.
		comp, ctx := h.header()
		inner = inner.WithAttrs(append(h.pre[:len(h.pre):len(h.pre)], slog.String(KeyComponent, comp), slog.Int64(KeyID, h.id), slog.String(KeyCtx, ctx)))
		c.pre = nil
	}
	c.inner = inner.WithGroup(name)
	c.grouped = true
	return &c
}

// Handle implements slog.Handler.
func (h *TextHandler) Handle(ctx context.Context, r slog.Record) error {
	hd := *h
	var rest []slog.Attr
	r.Attrs(func(a slog.Attr) bool {
		if h.grouped || !hd.take(a) {
			rest = append(rest, a)
		}
		return true
	})
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	if h.grouped {
		// The header went before the group (WithGroup).
		out.AddAttrs(rest...)
		return h.inner.Handle(ctx, out)
	}
	comp, lctx := hd.header()
	out.AddAttrs(h.pre...)
	out.AddAttrs(rest...)
	out.AddAttrs(slog.String(KeyComponent, comp), slog.Int64(KeyID, hd.id), slog.String(KeyCtx, lctx))
	return hd.inner.Handle(ctx, out)
}

// header is the component and ctx to write, with the JSON format's
// defaults.
func (h *TextHandler) header() (comp, ctx string) {
	comp, ctx = h.comp, h.ctx
	if comp == "" {
		comp = "-"
	}
	if ctx == "" {
		ctx = "main"
	}
	return comp, ctx
}
