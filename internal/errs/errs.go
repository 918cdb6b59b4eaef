// Package errs defines MongoDB-shaped errors: a numeric code, its codeName,
// a message and optional error labels. Every user-facing failure in Lode is
// an *errs.Error so that the server can render it as
// {ok: 0, errmsg, code, codeName}.
package errs

import (
	"errors"
	"fmt"
)

// Code is a MongoDB error code.
type Code int32

// MongoDB error codes used by Lode. Names follow MongoDB's error_codes.yml.
const (
	InternalError                            Code = 1
	BadValue                                 Code = 2
	NoSuchKey                                Code = 4
	GraphContainsCycle                       Code = 5
	HostUnreachable                          Code = 6
	HostNotFound                             Code = 7
	UnknownError                             Code = 8
	FailedToParse                            Code = 9
	CannotMutateObject                       Code = 10
	UserNotFound                             Code = 11
	UnsupportedFormat                        Code = 12
	Unauthorized                             Code = 13
	TypeMismatch                             Code = 14
	Overflow                                 Code = 15
	InvalidLength                            Code = 16
	ProtocolError                            Code = 17
	AuthenticationFailed                     Code = 18
	IllegalOperation                         Code = 20
	EmptyArrayOperation                      Code = 21
	InvalidBSON                              Code = 22
	LockTimeout                              Code = 24
	NamespaceNotFound                        Code = 26
	IndexNotFound                            Code = 27
	PathNotViable                            Code = 28
	NonExistentPath                          Code = 29
	InvalidPath                              Code = 30
	RoleNotFound                             Code = 31
	CannotBackfillArray                      Code = 34
	ConflictingUpdateOperators               Code = 40
	CursorNotFound                           Code = 43
	QueryPlanKilled                          Code = 175
	ClientDisconnect                         Code = 279
	NamespaceExists                          Code = 48
	MaxTimeMSExpired                         Code = 50
	DollarPrefixedFieldName                  Code = 52
	InvalidIdField                           Code = 53
	NotSingleValueField                      Code = 54
	InvalidDBRef                             Code = 55
	EmptyFieldName                           Code = 56
	DottedFieldName                          Code = 57
	CommandNotFound                          Code = 59
	ShardKeyNotFound                         Code = 61
	OplogOperationUnsupported                Code = 62
	WriteConcernFailed                       Code = 64
	MultipleErrorsOccurred                   Code = 65
	ImmutableField                           Code = 66
	CannotCreateIndex                        Code = 67
	IndexAlreadyExists                       Code = 68
	InvalidOptions                           Code = 72
	InvalidNamespace                         Code = 73
	NodeNotFound                             Code = 74
	WriteConcernLegacyOK                     Code = 75
	NoReplicationEnabled                     Code = 76
	OperationIncomplete                      Code = 77
	CommandResultSchemaViolation             Code = 78
	UnknownReplWriteConcern                  Code = 79
	IndexOptionsConflict                     Code = 85
	IndexKeySpecsConflict                    Code = 86
	CannotSplit                              Code = 87
	NetworkTimeout                           Code = 89
	OperationFailed                          Code = 96
	FileRenameFailed                         Code = 98
	UnsatisfiableWriteConcern                Code = 100
	WriteConflict                            Code = 112
	InitialSyncFailure                       Code = 113
	CommandNotSupported                      Code = 115
	ConflictingOperationInProgress           Code = 117
	NamespaceNotSharded                      Code = 118
	InvalidSyncSource                        Code = 119
	CommandFailed                            Code = 125
	CappedPositionLost                       Code = 136
	CursorKilled                             Code = 237
	NotImplemented                           Code = 238
	CollectionUUIDMismatch                   Code = 361
	UserWritesBlocked                        Code = 372
	NoSuchSession                            Code = 206
	TransactionTooOld                        Code = 225
	NoSuchTransaction                        Code = 251
	TransactionCommitted                     Code = 256
	TransactionTooLarge                      Code = 257
	OperationNotSupportedInTransaction       Code = 263
	TransactionExceededLifetimeLimitSeconds  Code = 290
	QueryExceededMemoryLimitNoDiskUseAllowed Code = 292
	APIVersionError                          Code = 322
	APIStrictError                           Code = 323
	APIDeprecationError                      Code = 324
	UnsupportedOpQueryCommand                Code = 352
	CannotConvertIndexToUnique               Code = 359
	IllegalOpMsgFlag                         Code = 223
	TooManyDocumentSequences                 Code = 233
	ChecksumMismatch                         Code = 288
	NotWritablePrimary                       Code = 10107
	BSONObjectTooLarge                       Code = 10334
	DuplicateKey                             Code = 11000
	InterruptedAtShutdown                    Code = 11600
	Interrupted                              Code = 11601
	NotPrimaryNoSecondaryOk                  Code = 13435
	NotPrimaryOrSecondary                    Code = 13436
	UnknownGroupAccumulator                  Code = 15952
	InvalidAggregationStage                  Code = 40324
	ClientMetadataCannotBeMutated            Code = 186
	QueryFeatureNotAllowed                   Code = 224
	InvalidUUID                              Code = 207
	ShutdownInProgress                       Code = 91
	ExceededTimeLimit                        Code = 262
	TransactionAPIMustRetryCommit            Code = 416
	ChangeStreamFatalError                   Code = 280
	ChangeStreamHistoryLost                  Code = 286
	SnapshotTooOld                           Code = 239
	SnapshotUnavailable                      Code = 246
	PreparedTransactionInProgress            Code = 267
	DatabaseDifferCase                       Code = 13297
	OutOfDiskSpace                           Code = 14031
	KeyTooLong                               Code = 17280
	CannotIndexParallelArrays                Code = 171
	NotExactValueField                       Code = 111
	ObjectIsBusy                             Code = 314
	IndexBuildAborted                        Code = 276
	DocumentValidationFailure                Code = 121
	OptionNotSupportedOnView                 Code = 167
	CommandNotSupportedOnView                Code = 166
	ViewDepthLimitExceeded                   Code = 165
	IncompatibleCollationVersion             Code = 161
	DurationOverflow                         Code = 159
	InvalidViewDefinition                    Code = 182
	AmbiguousIndexKeyPattern                 Code = 181
	IncompleteTransactionHistory             Code = 217
	CannotGrowDocumentInCappedNamespace      Code = 10003
	InvalidRoleModification                  Code = 49
	MechanismUnavailable                     Code = 334
	Location16410                            Code = 16410
	InvalidIndexSpecificationOption          Code = 197
	InvalidPipelineOperator                  Code = 168
	JSInterpreterFailure                     Code = 139
	ConversionFailure                        Code = 241
	ExceededMemoryLimit                      Code = 146
	InvalidResumeToken                       Code = 260
	ReadConcernMajorityNotEnabled            Code = 148
	StaleConfig                              Code = 13388
	CannotImplicitlyCreateCollection         Code = 227
	ClientMarkedKilled                       Code = 46841
	WriteConcernTimeout                      Code = 64
	ReadConcernMajorityNotAvailableYet       Code = 134
	InvalidReplicaSetConfig                  Code = 93
	NotYetInitialized                        Code = 94
	NoMatchingDocument                       Code = 47
	Location40352                            Code = 40352
	Location40353                            Code = 40353
	Location31254                            Code = 31254
	Location31253                            Code = 31253
	Location16020                            Code = 16020
	Location51108                            Code = 51108
)

var names = map[Code]string{
	InternalError:                            "InternalError",
	BadValue:                                 "BadValue",
	NoSuchKey:                                "NoSuchKey",
	GraphContainsCycle:                       "GraphContainsCycle",
	HostUnreachable:                          "HostUnreachable",
	HostNotFound:                             "HostNotFound",
	UnknownError:                             "UnknownError",
	FailedToParse:                            "FailedToParse",
	CannotMutateObject:                       "CannotMutateObject",
	UserNotFound:                             "UserNotFound",
	UnsupportedFormat:                        "UnsupportedFormat",
	Unauthorized:                             "Unauthorized",
	TypeMismatch:                             "TypeMismatch",
	Overflow:                                 "Overflow",
	InvalidLength:                            "InvalidLength",
	ProtocolError:                            "ProtocolError",
	AuthenticationFailed:                     "AuthenticationFailed",
	IllegalOperation:                         "IllegalOperation",
	EmptyArrayOperation:                      "EmptyArrayOperation",
	InvalidBSON:                              "InvalidBSON",
	LockTimeout:                              "LockTimeout",
	NamespaceNotFound:                        "NamespaceNotFound",
	IndexNotFound:                            "IndexNotFound",
	PathNotViable:                            "PathNotViable",
	NonExistentPath:                          "NonExistentPath",
	InvalidPath:                              "InvalidPath",
	RoleNotFound:                             "RoleNotFound",
	CannotBackfillArray:                      "CannotBackfillArray",
	ConflictingUpdateOperators:               "ConflictingUpdateOperators",
	CursorNotFound:                           "CursorNotFound",
	QueryPlanKilled:                          "QueryPlanKilled",
	ClientDisconnect:                         "ClientDisconnect",
	NoMatchingDocument:                       "NoMatchingDocument",
	NamespaceExists:                          "NamespaceExists",
	MaxTimeMSExpired:                         "MaxTimeMSExpired",
	DollarPrefixedFieldName:                  "DollarPrefixedFieldName",
	InvalidIdField:                           "InvalidIdField",
	NotSingleValueField:                      "NotSingleValueField",
	InvalidDBRef:                             "InvalidDBRef",
	EmptyFieldName:                           "EmptyFieldName",
	DottedFieldName:                          "DottedFieldName",
	CommandNotFound:                          "CommandNotFound",
	ShardKeyNotFound:                         "ShardKeyNotFound",
	WriteConcernFailed:                       "WriteConcernFailed",
	MultipleErrorsOccurred:                   "MultipleErrorsOccurred",
	ImmutableField:                           "ImmutableField",
	CannotCreateIndex:                        "CannotCreateIndex",
	IndexAlreadyExists:                       "IndexAlreadyExists",
	InvalidOptions:                           "InvalidOptions",
	InvalidNamespace:                         "InvalidNamespace",
	UnknownReplWriteConcern:                  "UnknownReplWriteConcern",
	IndexOptionsConflict:                     "IndexOptionsConflict",
	IndexKeySpecsConflict:                    "IndexKeySpecsConflict",
	NetworkTimeout:                           "NetworkTimeout",
	ShutdownInProgress:                       "ShutdownInProgress",
	InvalidReplicaSetConfig:                  "InvalidReplicaSetConfig",
	NotYetInitialized:                        "NotYetInitialized",
	OperationFailed:                          "OperationFailed",
	FileRenameFailed:                         "FileRenameFailed",
	UnsatisfiableWriteConcern:                "UnsatisfiableWriteConcern",
	NotExactValueField:                       "NotExactValueField",
	WriteConflict:                            "WriteConflict",
	CommandNotSupported:                      "CommandNotSupported",
	ConflictingOperationInProgress:           "ConflictingOperationInProgress",
	DocumentValidationFailure:                "DocumentValidationFailure",
	CommandFailed:                            "CommandFailed",
	ReadConcernMajorityNotAvailableYet:       "ReadConcernMajorityNotAvailableYet",
	CappedPositionLost:                       "CappedPositionLost",
	JSInterpreterFailure:                     "JSInterpreterFailure",
	ExceededMemoryLimit:                      "ExceededMemoryLimit",
	ReadConcernMajorityNotEnabled:            "ReadConcernMajorityNotEnabled",
	ViewDepthLimitExceeded:                   "ViewDepthLimitExceeded",
	IncompatibleCollationVersion:             "IncompatibleCollationVersion",
	DurationOverflow:                         "DurationOverflow",
	CommandNotSupportedOnView:                "CommandNotSupportedOnView",
	OptionNotSupportedOnView:                 "OptionNotSupportedOnView",
	InvalidPipelineOperator:                  "InvalidPipelineOperator",
	CannotIndexParallelArrays:                "CannotIndexParallelArrays",
	InvalidViewDefinition:                    "InvalidViewDefinition",
	ClientMetadataCannotBeMutated:            "ClientMetadataCannotBeMutated",
	InvalidIndexSpecificationOption:          "InvalidIndexSpecificationOption",
	NoSuchSession:                            "NoSuchSession",
	InvalidUUID:                              "InvalidUUID",
	QueryFeatureNotAllowed:                   "QueryFeatureNotAllowed",
	TransactionTooOld:                        "TransactionTooOld",
	CannotImplicitlyCreateCollection:         "CannotImplicitlyCreateCollection",
	CursorKilled:                             "CursorKilled",
	NotImplemented:                           "NotImplemented",
	CollectionUUIDMismatch:                   "CollectionUUIDMismatch",
	UserWritesBlocked:                        "UserWritesBlocked",
	ConversionFailure:                        "ConversionFailure",
	NoSuchTransaction:                        "NoSuchTransaction",
	TransactionCommitted:                     "TransactionCommitted",
	TransactionTooLarge:                      "TransactionTooLarge",
	InvalidResumeToken:                       "InvalidResumeToken",
	ExceededTimeLimit:                        "ExceededTimeLimit",
	OperationNotSupportedInTransaction:       "OperationNotSupportedInTransaction",
	IndexBuildAborted:                        "IndexBuildAborted",
	ChangeStreamFatalError:                   "ChangeStreamFatalError",
	ChangeStreamHistoryLost:                  "ChangeStreamHistoryLost",
	SnapshotTooOld:                           "SnapshotTooOld",
	SnapshotUnavailable:                      "SnapshotUnavailable",
	PreparedTransactionInProgress:            "PreparedTransactionInProgress",
	TransactionExceededLifetimeLimitSeconds:  "TransactionExceededLifetimeLimitSeconds",
	QueryExceededMemoryLimitNoDiskUseAllowed: "QueryExceededMemoryLimitNoDiskUseAllowed",
	ObjectIsBusy:                             "ObjectIsBusy",
	APIVersionError:                          "APIVersionError",
	APIStrictError:                           "APIStrictError",
	APIDeprecationError:                      "APIDeprecationError",
	UnsupportedOpQueryCommand:                "UnsupportedOpQueryCommand",
	CannotConvertIndexToUnique:               "CannotConvertIndexToUnique",
	IllegalOpMsgFlag:                         "IllegalOpMsgFlag",
	TooManyDocumentSequences:                 "TooManyDocumentSequences",
	ChecksumMismatch:                         "ChecksumMismatch",
	TransactionAPIMustRetryCommit:            "TransactionAPIMustRetryCommit",
	NotWritablePrimary:                       "NotWritablePrimary",
	BSONObjectTooLarge:                       "BSONObjectTooLarge",
	DuplicateKey:                             "DuplicateKey",
	InterruptedAtShutdown:                    "InterruptedAtShutdown",
	Interrupted:                              "Interrupted",
	DatabaseDifferCase:                       "DatabaseDifferCase",
	StaleConfig:                              "StaleConfig",
	NotPrimaryNoSecondaryOk:                  "NotPrimaryNoSecondaryOk",
	NotPrimaryOrSecondary:                    "NotPrimaryOrSecondary",
	OutOfDiskSpace:                           "OutOfDiskSpace",
	KeyTooLong:                               "KeyTooLong",
	InvalidAggregationStage:                  "Location40324",
	AmbiguousIndexKeyPattern:                 "AmbiguousIndexKeyPattern",
	IncompleteTransactionHistory:             "IncompleteTransactionHistory",
	CannotGrowDocumentInCappedNamespace:      "CannotGrowDocumentInCappedNamespace",
	InvalidRoleModification:                  "InvalidRoleModification",
	MechanismUnavailable:                     "MechanismUnavailable",
	ClientMarkedKilled:                       "ClientMarkedKilled",
}

// Name returns the codeName MongoDB reports for c. Codes that MongoDB raises
// from numbered assertions rather than named errors are reported as
// "Location<code>", as mongod does.
func (c Code) Name() string {
	if n, ok := names[c]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// Error is a MongoDB error: code, codeName, message and labels.
type Error struct {
	Code   Code
	Msg    string
	Labels []string
	// Info holds extra fields that some errors carry in their reply, for
	// example keyPattern and keyValue of a duplicate key error. It is raw
	// BSON of a document, or nil.
	Info []byte
	// Cause is the underlying error a MongoDB error was made from, if
	// any (Wrap); errors.Is and errors.As see it through Unwrap.
	Cause error
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Cause }

// Wrap returns an error with the given code and a formatted message that
// keeps cause for errors.Is and errors.As.
func Wrap(cause error, code Code, format string, args ...any) *Error {
	e := New(code, format, args...)
	e.Cause = cause
	return e
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Code.Name(), int32(e.Code), e.Msg)
}

// CodeName returns the MongoDB codeName of the error.
func (e *Error) CodeName() string { return e.Code.Name() }

// HasLabel reports whether the error carries the label l.
func (e *Error) HasLabel(l string) bool {
	for _, x := range e.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// WithLabels returns a copy of e carrying the extra labels.
func (e *Error) WithLabels(labels ...string) *Error {
	c := *e
	c.Labels = append(append([]string(nil), e.Labels...), labels...)
	return &c
}

// New returns an error with the given code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Msg: format}
	}
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// As extracts an *Error from err's chain. Errors that are not MongoDB errors
// become InternalError carrying err's text, so every failure can be reported
// in MongoDB's shape.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var c coder
	if errors.As(err, &c) {
		return &Error{Code: Code(c.MongoCode()), Msg: c.Error(), Cause: err}
	}
	return &Error{Code: InternalError, Msg: err.Error()}
}

// coder is an error of a lower layer that knows its MongoDB code without
// importing this package (storage.Failure).
type coder interface {
	error
	MongoCode() int32
}

// Is reports whether err is a MongoDB error with code c.
func Is(err error, c Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == c
}

// Error labels used by drivers.
const (
	LabelTransientTransaction = "TransientTransactionError"
	LabelUnknownCommitResult  = "UnknownTransactionCommitResult"
	LabelRetryableWrite       = "RetryableWriteError"
	LabelNoWritesPerformed    = "NoWritesPerformed"
)
