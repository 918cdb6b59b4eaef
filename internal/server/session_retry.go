package server

import (
	"context"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/storage"
)

// Durable retryable-write and transaction history: mongod's
// config.transactions. Each session that ran a retryable write or
// committed a transaction has one header record (storage.SetSession):
//
//	{_id: {id}, txnNum, lastWriteDate, state: "committed" (transactions),
//	 lodeRetry: {cmd, executed: [[from, to), ...], image: {op, doc, id}}}
//
// executed lists the statements (by index in the command, mongod's
// default stmtIds) that ran; a statement whose result is not the default
// of its command (its descriptor's retry form, session_retryform.go:
// {n: 1} for insert and delete, {n: 1, nModified: 1} for update) also
// has a statement record (storage.SetSessionStmt) with that result.
// image is that of a command answered from its image (findAndModify's):
// the document it returned (mongod's config.image_collection). cmd is
// the command's first name. The records are written by retryRecorder in
// the very Pebble batches that commit the write (engine.StmtRecorder), and
// by a transaction's commit batch, so they are exactly as durable as the
// write. The session keeps the record in memory (session.rec); it reads
// the durable one only on first sight of the session after a restart.
// Records are deleted when their session ends or expires (removeSession,
// pruneSessionRecords).

// retryRecord is a session's latest record, as committed.
type retryRecord struct {
	txnNum    int64
	cmd       string     // the retryable write's command; "" for a transaction
	form      *retryForm // cmd's, once a write of cmd runs under txnNum
	committed bool       // a committed multi-document transaction
	executed  []span     // statements that ran, sorted, disjoint
	image     *retryImage
	// imageAfter: the image keeps the document after the change
	// (findAndModify new: true; the attempt's, not kept).
	imageAfter bool
	// stmtKeys: statement records exist for txnNum (or older numbers),
	// to delete when the next number writes.
	stmtKeys bool
	// results of executed statements whose result is not the default
	// (statements absent have it). Statement 0's is in the header
	// (first), the others in statement records, which a record read
	// from disk has not loaded yet (partial) until a retry needs them.
	results map[int32]stmtResult
	partial bool
}

type span struct{ from, to int32 }

func (r *retryRecord) ran(i int32) bool {
	k := sort.Search(len(r.executed), func(k int) bool { return r.executed[k].to > i })
	return k < len(r.executed) && r.executed[k].from <= i
}

// addSpan adds statement i to the sorted, disjoint spans.
func addSpan(sp []span, i int32) []span {
	k := sort.Search(len(sp), func(k int) bool { return sp[k].to >= i })
	if k < len(sp) && sp[k].from <= i && i < sp[k].to {
		return sp
	}
	if k < len(sp) && sp[k].to == i { // extends sp[k]
		sp[k].to++
		if k+1 < len(sp) && sp[k+1].from == sp[k].to {
			sp[k].to = sp[k+1].to
			sp = append(sp[:k+1], sp[k+2:]...)
		}
		return sp
	}
	if k < len(sp) && sp[k].from == i+1 {
		sp[k].from = i
		return sp
	}
	sp = append(sp, span{})
	copy(sp[k+1:], sp[k:])
	sp[k] = span{i, i + 1}
	return sp
}

// appendHeader appends the header record of r for session id to dst;
// stmtKeys says whether statement records exist. It allocates nothing
// when dst has room: it runs in every retryable write.
func appendHeader(dst, id []byte, r *retryRecord, stmtKeys bool, at time.Time) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	var sub int32
	sub, dst = bsoncore.AppendDocumentElementStart(dst, "_id")
	dst = bsoncore.AppendBinaryElement(dst, "id", 4, id)
	dst, _ = bsoncore.AppendDocumentEnd(dst, sub)
	dst = bsoncore.AppendInt64Element(dst, "txnNum", r.txnNum)
	dst = bsoncore.AppendDateTimeElement(dst, "lastWriteDate", at.UnixMilli())
	if r.committed {
		dst = bsoncore.AppendStringElement(dst, "state", "committed")
	}
	if r.cmd != "" {
		var lr, arr int32
		lr, dst = bsoncore.AppendDocumentElementStart(dst, "lodeRetry")
		dst = bsoncore.AppendStringElement(dst, "cmd", r.cmd)
		arr, dst = bsoncore.AppendArrayElementStart(dst, "executed")
		for i, sp := range r.executed {
			var pair int32
			pair, dst = bsoncore.AppendArrayElementStart(dst, bsonutil.ArrayKey(i))
			dst = bsoncore.AppendInt32Element(dst, "0", sp.from)
			dst = bsoncore.AppendInt32Element(dst, "1", sp.to)
			dst, _ = bsoncore.AppendArrayEnd(dst, pair)
		}
		dst, _ = bsoncore.AppendArrayEnd(dst, arr)
		if r.image != nil {
			var im int32
			im, dst = bsoncore.AppendDocumentElementStart(dst, "image")
			dst = bsoncore.AppendStringElement(dst, "op", r.image.op)
			if r.image.doc != nil {
				dst = bsoncore.AppendDocumentElement(dst, "doc", r.image.doc)
			}
			if r.image.id.Type != 0 {
				dst = bsoncore.AppendValueElement(dst, "id", r.image.id)
			}
			dst, _ = bsoncore.AppendDocumentEnd(dst, im)
		}
		if res, ok := r.results[0]; ok && !r.form.isDefault(res) {
			dst = bsoncore.AppendDocumentElement(dst, "first", encodeStmt(res))
		}
		if stmtKeys {
			dst = bsoncore.AppendBooleanElement(dst, "stmtRecords", true)
		}
		dst, _ = bsoncore.AppendDocumentEnd(dst, lr)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// decodeHeader reads a header record; lastWriteDate is returned apart.
func decodeHeader(v bsoncore.Document) (*retryRecord, time.Time) {
	r := &retryRecord{}
	r.txnNum, _ = v.Lookup("txnNum").Int64OK()
	ms, _ := v.Lookup("lastWriteDate").DateTimeOK()
	st, _ := v.Lookup("state").StringValueOK()
	r.committed = st == "committed"
	if lr, ok := v.Lookup("lodeRetry").DocumentOK(); ok {
		r.cmd, _ = lr.Lookup("cmd").StringValueOK()
		r.stmtKeys, _ = lr.Lookup("stmtRecords").BooleanOK()
		r.partial = r.stmtKeys
		if first, ok := lr.Lookup("first").DocumentOK(); ok {
			r.results = map[int32]stmtResult{0: decodeStmt(first)}
		}
		if arr, ok := lr.Lookup("executed").ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, sv := range vals {
				pair, ok := sv.ArrayOK()
				if !ok {
					continue
				}
				pv, _ := pair.Values()
				if len(pv) == 2 {
					r.executed = append(r.executed, span{pv[0].Int32(), pv[1].Int32()})
				}
			}
		}
		if im, ok := lr.Lookup("image").DocumentOK(); ok {
			fi := &retryImage{}
			fi.op, _ = im.Lookup("op").StringValueOK()
			fi.doc, _ = im.Lookup("doc").DocumentOK()
			fi.id = im.Lookup("id")
			r.image = fi
		}
	}
	return r, time.UnixMilli(ms)
}

func encodeStmt(r stmtResult) []byte {
	b := bsoncore.NewDocumentBuilder().AppendInt32("n", r.n).AppendInt32("nModified", r.nModified)
	if r.upserted.Type != 0 {
		b.AppendValue("upserted", r.upserted)
	}
	return b.Build()
}

func decodeStmt(v bsoncore.Document) stmtResult {
	var r stmtResult
	r.n, _ = v.Lookup("n").Int32OK()
	r.nModified, _ = v.Lookup("nModified").Int32OK()
	r.upserted = v.Lookup("upserted")
	return r
}

// loadRecord reads the session's durable record on first sight of the
// session. Called with ss.mu held.
func (s *Server) loadRecord(ss *session) error {
	if ss.loaded {
		return nil
	}
	v, err := s.eng.SessionRecord([]byte(ss.id))
	if err != nil {
		return err
	}
	ss.loaded = true
	if v == nil {
		return nil
	}
	r, _ := decodeHeader(v)
	if r.txnNum < ss.txnNumber || r.txnNum == ss.txnNumber && ss.state != txnNone {
		return nil // the session moved on in memory
	}
	ss.rec = r
	ss.txnNumber = r.txnNum
	ss.state, ss.tx, ss.committedTx, ss.retryReply = txnNone, nil, nil, nil
	if r.committed {
		ss.state = txnCommitted
	}
	return nil
}

// retryRecorder is the engine.StmtRecorder of one attempt of a retryable
// write: it adds the statements the attempt runs to the session's record
// (rec, shared with the session) and writes the record into each batch.
type retryRecorder struct {
	ids stmtIDs // statement index -> stmtId
	id  []byte
	buf []byte // the header's encoding, reused
	rec *retryRecord
	cur int32
	// clearStmts: statement records of older numbers are to be deleted
	// by the next batch.
	clearStmts bool

	// Since the last Done: the statements changed, with their previous
	// result (ok=false: none), and the spans before.
	touched  map[int32]prevResult
	oldSpans []span
	oldImage *retryImage
	pending  bool
	stmtKey  bool // a statement record was staged
}

type prevResult struct {
	r  stmtResult
	ok bool
}

func (r *retryRecorder) Begin(i int) bool {
	r.cur = r.ids.of(i)
	return r.rec.ran(r.cur)
}

// stmtIDs numbers a command's statements as mongod does: stmtIds[i]
// when given, else stmtId+i (stmtId defaults to 0).
type stmtIDs struct {
	base int32
	list []int32
}

func (s stmtIDs) of(i int) int32 {
	if s.list != nil && i < len(s.list) {
		return s.list[i]
	}
	return s.base + int32(i)
}

// stmtIDsOf reads stmtId and stmtIds from a write command (validated by
// parseWriteBatch).
func stmtIDsOf(req *Request) stmtIDs {
	var ids stmtIDs
	if v, err := req.Cmd.LookupErr("stmtId"); err == nil {
		ids.base, _ = v.Int32OK()
	}
	if v, err := req.Cmd.LookupErr("stmtIds"); err == nil {
		if arr, ok := v.ArrayOK(); ok {
			vals, _ := arr.Values()
			ids.list = make([]int32, len(vals))
			for i, x := range vals {
				ids.list[i], _ = x.Int32OK()
			}
		}
	}
	return ids
}

func (r *retryRecorder) Change(op byte, pre, post bsoncore.Document) {
	rec := r.rec
	if !r.pending {
		r.pending = true
		r.oldSpans = append(r.oldSpans[:0], rec.executed...)
		r.oldImage = rec.image
	}
	rec.executed = addSpan(rec.executed, r.cur)
	f := rec.form
	if f.answer != nil {
		rec.image = newRetryImage(op, pre, post, rec.imageAfter)
		return // the image answers: no statement result
	}
	if f.counts == 0 {
		return // every statement that runs has the default result (insert)
	}
	if r.touched == nil {
		r.touched = map[int32]prevResult{}
	}
	if _, ok := r.touched[r.cur]; !ok {
		old, had := rec.results[r.cur]
		r.touched[r.cur] = prevResult{old, had}
	}
	if rec.results == nil {
		rec.results = map[int32]stmtResult{}
	}
	res := rec.results[r.cur]
	f.count(&res, op, post)
	rec.results[r.cur] = res
}

func (r *retryRecorder) Stage(b *storage.Batch) error {
	rec := r.rec
	if r.clearStmts {
		if err := storage.DeleteSessionStmts(b, r.id); err != nil {
			return err
		}
	}
	for i := range r.touched {
		res := rec.results[i]
		if i == 0 || rec.form.isDefault(res) {
			continue // statement 0's result is in the header
		}
		if err := storage.SetSessionStmt(b, r.id, rec.txnNum, i, encodeStmt(res)); err != nil {
			return err
		}
		r.stmtKey = true
	}
	r.buf = appendHeader(r.buf[:0], r.id, rec, rec.stmtKeys && !r.clearStmts || r.stmtKey, time.Now())
	err := storage.SetSession(b, r.id, r.buf) // the batch copies it
	if cap(r.buf) > 64<<10 {
		r.buf = nil // a findAndModify's large image: not kept per session
	}
	return err
}

func (r *retryRecorder) Done(committed bool) {
	rec := r.rec
	if committed {
		if r.clearStmts {
			r.clearStmts, rec.stmtKeys = false, false
		}
		if r.stmtKey {
			rec.stmtKeys = true
		}
	} else if r.pending {
		rec.executed = append(rec.executed[:0], r.oldSpans...)
		rec.image = r.oldImage
		for i, p := range r.touched {
			if p.ok {
				rec.results[i] = p.r
			} else {
				delete(rec.results, i)
			}
		}
	}
	r.stmtKey, r.pending = false, false
	clear(r.touched)
}

// runRetryableWrite runs h as the retryable write a.txnNumber, new or
// retried after its first attempt's reply was lost (ss.rec holds the
// statements that ran). Called with ss.mu held.
func (s *Server) runRetryableWrite(ctx context.Context, h handler, req *Request, ss *session, a sessionArgs) (bsoncore.Document, error) {
	// The record names the command by its descriptor's first name, so
	// that its spellings (findAndModify's two) are one command.
	c := req.command()
	cmd, form := c.names[0], c.retry
	var prior *retryRecord // the earlier attempts' record
	if ss.rec != nil && ss.rec.txnNum == a.txnNumber && ss.rec.cmd != "" {
		prior = ss.rec
		if prior.cmd != cmd {
			return nil, errs.New(errs.Location50911, "Request with transaction number %d has already been used for a %s command", a.txnNumber, prior.cmd)
		}
		prior.form = form // a record read from disk names only cmd
		if len(prior.executed) > 0 {
			if err := s.loadResults(ss.id, prior); err != nil {
				return nil, err
			}
		}
		if form.answer != nil && prior.image != nil {
			s.log.Debug("retryable write answered from its record", "cmd", req.Name, "txnNumber", a.txnNumber)
			if err := s.retryDurable(ctx, req); err != nil {
				return nil, err
			}
			return form.answer(req, prior.image)
		}
	}
	// The session's recorder and record are reused from write to write:
	// a retryable write allocates little more than a plain one.
	rr := &ss.recorder
	if rr.id == nil {
		rr.id = []byte(ss.id)
	}
	rr.cur, rr.pending, rr.stmtKey = 0, false, false
	rr.ids = stmtIDs{}
	if len(req.Cmd) > 0 && hasStmtIDs(req) {
		rr.ids = stmtIDsOf(req)
	}
	rr.cur = rr.ids.of(0)
	clear(rr.touched)
	rec := prior
	if rec == nil {
		rec = ss.rec
		if rec == nil || rec.committed || rec.cmd == "" {
			rec = &retryRecord{stmtKeys: rec != nil && rec.stmtKeys}
		}
		// Statement records of an older number are deleted by the first
		// batch of this one.
		rr.clearStmts = rec.stmtKeys
		clear(rec.results)
		*rec = retryRecord{txnNum: a.txnNumber, cmd: cmd, form: form, executed: rec.executed[:0], stmtKeys: rec.stmtKeys, results: rec.results}
		if form.imageAfter != nil {
			rec.imageAfter = form.imageAfter(req)
		}
	}
	rr.rec = rec
	skipped := snapshotRan(prior, req, rr.ids)
	body, err := h(engine.WithStmtRecorder(ctx, rr), s, req)
	ss.rec = rec
	if err != nil || len(skipped) == 0 {
		return body, err
	}
	if err := s.retryDurable(ctx, req); err != nil {
		return nil, err
	}
	return mergeRetried(body, prior, skipped), nil
}

// retryDurable waits, for a retry answered (in part) from an earlier
// attempt, for the durability the retry's write concern asks: the first
// attempt may have asked for less. mongod waits for the retry's write
// concern too.
func (s *Server) retryDurable(ctx context.Context, req *Request) error {
	wc, err := parseWriteConcern(req)
	if err != nil || !wc.journal {
		return err
	}
	if err := s.eng.Sync(ctx); err != nil {
		return errs.New(errs.WriteConcernFailed, "waiting for journal: %v", err)
	}
	return nil
}

// ranStmt is a statement of the command that an earlier attempt ran.
type ranStmt struct{ index, id int32 }

// snapshotRan lists the statements of req that earlier attempts ran.
func snapshotRan(prior *retryRecord, req *Request, ids stmtIDs) []ranStmt {
	if prior == nil || len(prior.executed) == 0 {
		return nil
	}
	vals, ok := req.stmtValues(req.command().stmts)
	if !ok {
		return nil
	}
	var out []ranStmt
	for i := range vals {
		if id := ids.of(i); prior.ran(id) {
			out = append(out, ranStmt{int32(i), id})
		}
	}
	return out
}

// hasStmtIDs reports whether a command numbers its statements itself.
func hasStmtIDs(req *Request) bool {
	_, ok := bsonutil.LookupField(req.Cmd, "stmtId")
	if !ok {
		_, ok = bsonutil.LookupField(req.Cmd, "stmtIds")
	}
	return ok
}

// loadResults reads the statement records of rec (once).
func (s *Server) loadResults(id string, rec *retryRecord) error {
	if !rec.partial {
		return nil
	}
	if rec.results == nil {
		rec.results = map[int32]stmtResult{}
	}
	err := s.eng.SessionStmts([]byte(id), rec.txnNum, func(stmt int32, v []byte) error {
		rec.results[stmt] = decodeStmt(v)
		return nil
	})
	if err == nil {
		rec.partial = false
	}
	return err
}

// mergeRetried adds to the reply of a retried write the results of the
// statements its earlier attempts ran (which this attempt skipped), as
// mongod answers them from its history.
func mergeRetried(body bsoncore.Document, rec *retryRecord, skipped []ranStmt) bsoncore.Document {
	var n, nMod int32
	type up struct {
		index int32
		id    bsoncore.Value
	}
	var ups []up
	for _, st := range skipped {
		r, ok := rec.results[st.id]
		if !ok {
			r = rec.form.dflt
		}
		n += r.n
		nMod += r.nModified
		if r.upserted.Type != 0 {
			ups = append(ups, up{st.index, r.upserted})
		}
	}
	if old, ok := body.Lookup("upserted").ArrayOK(); ok {
		vals, _ := old.Values()
		for _, v := range vals {
			d, _ := v.DocumentOK()
			ups = append(ups, up{d.Lookup("index").AsInt32(), d.Lookup("_id")})
		}
	}
	sort.Slice(ups, func(a, b int) bool { return ups[a].index < ups[b].index })
	// upserted follows nModified, or n in a reply without nModified, as
	// the handlers write it.
	_, errNMod := body.LookupErr("nModified")
	b := bsoncore.NewDocumentBuilder()
	elems, _ := body.Elements()
	wroteUps := false
	appendUps := func() {
		if wroteUps || len(ups) == 0 {
			return
		}
		wroteUps = true
		ab := bsoncore.NewArrayBuilder()
		for _, u := range ups {
			ab.AppendDocument(bsoncore.NewDocumentBuilder().AppendInt32("index", u.index).AppendValue("_id", u.id).Build())
		}
		b.AppendArray("upserted", ab.Build())
	}
	for _, el := range elems {
		switch el.Key() {
		case "n":
			b.AppendInt32("n", el.Value().AsInt32()+n)
			if errNMod != nil {
				appendUps()
			}
		case "nModified":
			b.AppendInt32("nModified", el.Value().AsInt32()+nMod)
			appendUps()
		case "upserted":
			appendUps()
		default:
			b.AppendValue(el.Key(), el.Value())
		}
	}
	appendUps()
	return b.Build()
}

// txnCommitRecord returns the function that writes the record of the
// committed transaction txnNum of ss into its commit batch.
func txnCommitRecord(ss *session, txnNum int64) func(b *storage.Batch) error {
	id := []byte(ss.id)
	clearStmts := ss.rec != nil && ss.rec.stmtKeys
	return func(b *storage.Batch) error {
		if clearStmts {
			if err := storage.DeleteSessionStmts(b, id); err != nil {
				return err
			}
		}
		return storage.SetSession(b, id, appendHeader(nil, id, &retryRecord{txnNum: txnNum, committed: true}, false, time.Now()))
	}
}

// pruneSessionRecords deletes the durable records of sessions that no
// longer live in memory and wrote nothing for longer than the session
// timeout (records left by an earlier run), as mongod's session reaper
// removes the config.transactions entries of expired sessions.
func (s *Server) pruneSessionRecords(now time.Time, timeout time.Duration) {
	var gone [][]byte
	r := &s.sessions
	err := s.eng.SessionRecords(func(id, v []byte) error {
		_, at := decodeHeader(v)
		if now.Sub(at) <= timeout {
			return nil
		}
		r.mu.Lock()
		_, live := r.m[string(id)]
		r.mu.Unlock()
		if !live {
			gone = append(gone, append([]byte(nil), id...))
		}
		return nil
	})
	if err == nil {
		err = s.eng.DeleteSessionRecords(gone)
	}
	if err != nil {
		s.log.Warn("pruning session records failed", "error", err)
	}
}

// dropRecord deletes the durable record of session key, if any.
func (s *Server) dropRecord(key string) {
	if err := s.eng.DeleteSessionRecords([][]byte{[]byte(key)}); err != nil {
		s.log.Warn("deleting a session record failed", "error", err)
	}
}

// txnTableNS reports whether db.coll is config.transactions, which reads
// the sessions' records.
func txnTableNS(db, coll string) bool { return db == "config" && coll == "transactions" }

// openTxnTable serves a find on config.transactions from the session
// records: filter, sort, projection, skip and limit, in memory (one
// record per session).
func (s *Server) openTxnTable(ctx context.Context, spec engine.FindSpec) (*sliceSource, error) {
	if engine.TxnFrom(ctx) != nil {
		return nil, errs.New(errs.OperationNotSupportedInTransaction, "Cannot run command against the 'config' database in a transaction.")
	}
	var f *query.Filter
	if len(spec.Filter) > 5 {
		var err error
		if f, err = query.Parse(spec.Filter); err != nil {
			return nil, err
		}
	}
	var proj *query.Projection
	if len(spec.Projection) > 5 {
		var err error
		if proj, err = query.ParseProjection(spec.Projection); err != nil {
			return nil, err
		}
	}
	var docs []bsoncore.Document
	err := s.eng.SessionRecords(func(_, v []byte) error {
		d := bsoncore.Document(append([]byte(nil), v...))
		if f == nil || f.Match(d) {
			docs = append(docs, d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(spec.Sort) > 5 {
		so, err := query.ParseSort(spec.Sort)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(docs, func(i, j int) bool { return so.Compare(docs[i], docs[j]) < 0 })
	}
	if spec.Skip > 0 {
		docs = docs[min(int(spec.Skip), len(docs)):]
	}
	if spec.Limit > 0 && int(spec.Limit) < len(docs) {
		docs = docs[:spec.Limit]
	}
	if proj != nil {
		for i, d := range docs {
			p, err := proj.Apply(d, 0)
			if err != nil {
				return nil, err
			}
			docs[i] = p
		}
	}
	return &sliceSource{docs: docs}, nil
}
