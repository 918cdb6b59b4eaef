package server

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// retryForm is the part of a retryable write that differs per command:
// how its statements' results are recorded in the session's record and
// how a retry's reply is rebuilt from the record. Each retryable
// command's file sets its own in its descriptor (command.retry); the
// record, its stmtIds and the txnNumber checks are session_retry.go's.
type retryForm struct {
	// dflt is the result of a statement that ran and has no result
	// recorded; only a statement whose result differs from it is
	// recorded. Unused with answer: the image answers.
	dflt stmtResult
	// counts are what a statement's result counts of the changes it
	// made; none: every statement that runs has dflt (insert), and no
	// result is recorded.
	counts retryCounts
	// answer, when set, keeps the command's outcome as an image of the
	// document it returned (findAndModify; mongod's
	// config.image_collection) and answers a retry from that image.
	answer func(req *Request, im *retryImage) (bsoncore.Document, error)
	// imageAfter, with answer, tells whether the image keeps the
	// document after the change rather than before (findAndModify's new:
	// true); an upsert's is after.
	imageAfter func(req *Request) bool
}

// retryCounts are the counts a statement's result sums over its changes.
type retryCounts uint8

const (
	// countN: n, one per change.
	countN retryCounts = 1 << iota
	// countModified: nModified, one per update of a document.
	countModified
	// countUpserted: upserted, the _id of the document an upsert inserted.
	countUpserted
)

// stmtResult is a statement's outcome as its command reports it.
type stmtResult struct {
	n, nModified int32
	upserted     bsoncore.Value // update: the upserted _id
}

// isDefault reports whether r is the result f gives a statement with no
// result recorded.
func (f *retryForm) isDefault(r stmtResult) bool {
	return r.n == f.dflt.n && r.nModified == f.dflt.nModified && r.upserted.Type == 0
}

// count adds to res a change the statement made: op 'i' (post the
// inserted document), 'u' or 'd'.
func (f *retryForm) count(res *stmtResult, op byte, post bsoncore.Document) {
	if f.counts&countN != 0 {
		res.n++
	}
	switch {
	case op == 'u' && f.counts&countModified != 0:
		res.nModified++
	case op == 'i' && f.counts&countUpserted != 0:
		res.upserted = post.Lookup("_id")
	}
}

// retryImage is the outcome of a write answered from its image: op 'u',
// 'i' (upsert) or 'd', the document it returned and, for an upsert, the
// new _id.
type retryImage struct {
	op  string
	doc bsoncore.Document
	id  bsoncore.Value
}

// newRetryImage is the image of a change: the document after it when
// after (or for an upsert), else before; an upsert's document is kept
// only when after.
func newRetryImage(op byte, pre, post bsoncore.Document, after bool) *retryImage {
	doc := pre
	if after || op == 'i' {
		doc = post
	}
	im := &retryImage{op: string(op)}
	if op == 'i' {
		im.id = post.Lookup("_id")
	}
	if doc != nil && (op != 'i' || after) {
		im.doc = append(bsoncore.Document(nil), doc...)
	}
	return im
}
