package wire

import "github.com/lodedb/lode/internal/errs"

// MongoDB error codes used by the OP_MSG parser that package errs does not
// name yet. Their codeNames are in the comments.
const (
	// CodeIllegalOpMsgFlag is IllegalOpMsgFlag: an unknown required flag bit.
	CodeIllegalOpMsgFlag errs.Code = 223
	// CodeTooManyDocumentSequences is TooManyDocumentSequences.
	CodeTooManyDocumentSequences errs.Code = 233
	// CodeChecksumMismatch is ChecksumMismatch: bad OP_MSG CRC-32C.
	CodeChecksumMismatch errs.Code = 288
)

// ProtocolError is the error ReadMessage returns for a message it cannot
// accept. It tells the caller what to do with the connection:
//
//   - Fatal true: the stream is unusable or MongoDB treats the fault as
//     connection-fatal (short read, EOF mid-message, a declared length outside
//     [16, MaxMessageSizeBytes], an I/O error, and the OP_MSG faults MongoDB
//     classes as ConnectionFatalMessageParseError: IllegalOpMsgFlag,
//     TooManyDocumentSequences, ChecksumMismatch). Close the connection
//     without replying.
//   - Fatal false: the whole message was consumed and the next one starts at
//     the right byte. Reply to Header.RequestID with Err (unless MoreToCome)
//     and keep reading.
//
// Err is always set and is the MongoDB error to report or log. Cause holds
// an underlying error such as io.ErrUnexpectedEOF or a network error, or nil.
// errors.Is/As see both through Unwrap.
type ProtocolError struct {
	// Fatal reports that the connection must be closed.
	Fatal bool
	// Header is the offending message's header; zero if it was not read.
	Header Header
	// MoreToCome is set when the message was an OP_MSG with the moreToCome
	// flag: the client expects no reply.
	MoreToCome bool
	// Err is the MongoDB error describing the fault.
	Err *errs.Error
	// Cause is the underlying error, if any.
	Cause error
}

// Error implements error.
func (e *ProtocolError) Error() string {
	kind := "invalid message"
	if e.Fatal {
		kind = "fatal protocol error"
	}
	s := kind + ": " + e.Err.Error()
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns Err and Cause for errors.Is and errors.As.
func (e *ProtocolError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// badMessage returns a non-fatal error for a message whose framing is intact.
func badMessage(code errs.Code, format string, args ...any) *ProtocolError {
	return &ProtocolError{Err: errs.New(code, format, args...)}
}

// fatal returns a connection-fatal error.
func fatal(cause error, code errs.Code, format string, args ...any) *ProtocolError {
	return &ProtocolError{Fatal: true, Err: errs.New(code, format, args...), Cause: cause}
}

// bsonSizeError reports a document larger than MaxInternalBSONObjectSize in
// mongod's words.
func bsonSizeError(size int) *ProtocolError {
	return badMessage(errs.BSONObjectTooLarge,
		"BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d(%dMB)",
		size, uint32(size), MaxInternalBSONObjectSize, MaxInternalBSONObjectSize/(1024*1024))
}
