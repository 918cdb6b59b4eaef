package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/mongolog"
)

// maxLogAttrBytes is mongod's maxLogSizeKB (10 KB): a command document
// beyond it is logged without its last fields, which the line's
// "truncated" and "size" attributes then describe, as mongod does.
const maxLogAttrBytes = 10 << 10

// logSlow writes the "Slow query" line (mongod's log id 51803, component
// COMMAND) of a finished command, with mongod's attributes in mongod's
// order, and keeps it for getLog.
func (s *Server) logSlow(e *opEntry) {
	st := &e.op.stats
	cmdJSON, trunc, size := truncatedCommandJSON(redactCommand(e.req.Cmd))
	attrs := make([]slog.Attr, 0, 24)
	attrs = append(attrs,
		slog.String(mongolog.KeyComponent, "COMMAND"),
		slog.Int(mongolog.KeyID, mongolog.IDSlowQuery),
		slog.String(mongolog.KeyCtx, "conn"+strconv.FormatInt(e.op.connID, 10)),
		slog.String("type", "command"),
		slog.String("ns", e.ns))
	if e.appName != "" {
		attrs = append(attrs, slog.String("appName", e.appName))
	}
	attrs = append(attrs, slog.Any("command", mongolog.RawJSON(cmdJSON)))
	if e.origCmd != nil {
		orig, _, _ := truncatedCommandJSON(e.origCmd)
		attrs = append(attrs, slog.Any("originatingCommand", mongolog.RawJSON(orig)))
	}
	if st.PlanSummary != "" {
		attrs = append(attrs, slog.String("planSummary", st.PlanSummary))
	}
	if id := e.cursorID(); id != 0 {
		attrs = append(attrs, slog.Int64("cursorid", id))
	}
	if st.PlanSummary != "" || st.KeysExamined > 0 || st.DocsExamined > 0 {
		attrs = append(attrs, slog.Int64("keysExamined", st.KeysExamined), slog.Int64("docsExamined", st.DocsExamined))
	}
	if st.HasSortStage {
		attrs = append(attrs, slog.Bool("hasSortStage", true))
	}
	if st.UsedDisk {
		attrs = append(attrs, slog.Bool("usedDisk", true))
	}
	if st.HasPlanCacheKey {
		attrs = append(attrs, slog.String("queryHash", fmt.Sprintf("%08X", st.QueryHash)), slog.String("planCacheKey", fmt.Sprintf("%08X", st.PlanCacheKey)))
	}
	if e.isCursor && e.exhaust {
		attrs = append(attrs, slog.Bool("cursorExhausted", true))
	}
	attrs = appendWriteAttrs(attrs, e)
	attrs = append(attrs, slog.Int("numYields", 0))
	if e.isCursor || st.NReturned > 0 {
		attrs = append(attrs, slog.Int64("nreturned", st.NReturned))
	}
	if e.err != nil {
		ee := errs.As(e.err)
		attrs = append(attrs, slog.Int("ok", 0), slog.String("errMsg", ee.Msg),
			slog.String("errName", ee.Code.Name()), slog.Int("errCode", int(ee.Code)))
	}
	attrs = append(attrs, slog.Int("reslen", len(e.reply)))
	if e.remote != "" {
		attrs = append(attrs, slog.String("remote", e.remote))
	}
	attrs = append(attrs, slog.String("protocol", "op_msg"), slog.Int64("durationMillis", e.dur.Milliseconds()))
	if trunc != "" {
		attrs = append(attrs, slog.Any(mongolog.KeyTruncated, mongolog.RawJSON(trunc)),
			slog.Any(mongolog.KeySize, mongolog.RawJSON(`{"command":`+strconv.Itoa(size)+`}`)))
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "Slow query", attrs...)
	// getLog's copy, in the JSON form whatever the server's log format.
	var buf bytes.Buffer
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "Slow query", 0)
	r.AddAttrs(attrs...)
	if mongolog.NewHandler(&buf, nil).Handle(context.Background(), r) == nil {
		s.logs.add(strings.TrimSuffix(buf.String(), "\n"))
	}
}

// appendWriteAttrs adds the write counts mongod logs for writes.
func appendWriteAttrs(attrs []slog.Attr, e *opEntry) []slog.Attr {
	st := &e.op.stats
	o := e.req.command().observe
	switch {
	case o.op == opUpdate:
		attrs = append(attrs, slog.Int64("nMatched", st.NMatched), slog.Int64("nModified", st.NModified))
		if st.NUpserted > 0 {
			attrs = append(attrs, slog.Int64("nUpserted", st.NUpserted))
		}
	case o.op == opRemove:
		attrs = append(attrs, slog.Int64("ndeleted", st.NDeleted))
	case o.op == opInsert:
		attrs = append(attrs, slog.Int64("ninserted", st.NInserted))
	case o.has(modifyReply):
		if st.NDeleted > 0 {
			attrs = append(attrs, slog.Int64("ndeleted", st.NDeleted))
		} else {
			attrs = append(attrs, slog.Int64("nMatched", st.NMatched), slog.Int64("nModified", st.NModified))
		}
		if st.NUpserted > 0 {
			attrs = append(attrs, slog.Int64("nUpserted", st.NUpserted))
		}
	}
	if st.KeysInserted > 0 {
		attrs = append(attrs, slog.Int64("keysInserted", st.KeysInserted))
	}
	if st.KeysDeleted > 0 {
		attrs = append(attrs, slog.Int64("keysDeleted", st.KeysDeleted))
	}
	return attrs
}

// truncatedCommandJSON renders cmd as relaxed Extended JSON. Beyond
// maxLogAttrBytes it keeps the leading fields that fit and returns the
// "truncated" attribute naming the first field left out (its type and
// size), and the command's full BSON size.
func truncatedCommandJSON(cmd bsoncore.Document) (js, truncated string, size int) {
	// Render the whole command only when it can fit: a find with an $in
	// of a million values must not be turned into tens of MB of JSON to
	// log its first 10 KB.
	if len(cmd) <= 2*maxLogAttrBytes {
		if full := extJSON(cmd); len(full) <= maxLogAttrBytes {
			return full, "", 0
		}
	}
	elems, _ := cmd.Elements()
	b := bsoncore.NewDocumentBuilder()
	total := 0
	for _, el := range elems {
		if total+len(el) > maxLogAttrBytes {
			truncated = `{"command":{` + strconv.Quote(el.Key()) + `:{"type":` + strconv.Quote(bsonutil.TypeName(el.Value().Type)) +
				`,"size":` + strconv.Itoa(len(el.Value().Data)) + `}}}`
			break
		}
		total += len(el)
		b.AppendValue(el.Key(), el.Value())
	}
	return extJSON(b.Build()), truncated, len(cmd)
}

// extJSON renders a document as relaxed Extended JSON, as mongod's log
// lines and the profiler's client tools show documents.
func extJSON(d bsoncore.Document) string {
	out, err := bson.MarshalExtJSON(bson.Raw(d), false, false)
	if err != nil {
		return strconv.Quote(err.Error())
	}
	return string(out)
}
