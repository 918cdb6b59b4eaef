package errs

// Codes and labels of change streams' errors, with mongod's names.
const (
	FailedToSatisfyReadPreference          Code = 133
	StaleEpoch                             Code = 150
	RetryChangeStream                      Code = 234
	ConnectionPoolExpired                  Code = 317
	InternalTransactionNotSupported        Code = 358
	BackupCursorOpenConflictWithCheckpoint Code = 50915
)

// Labels mongod gives change streams' errors: drivers resume a stream
// after an error labelled ResumableChangeStreamError, and never after one
// labelled NonResumableChangeStreamError.
const (
	LabelResumableChangeStream    = "ResumableChangeStreamError"
	LabelNonResumableChangeStream = "NonResumableChangeStreamError"
)

func init() {
	names[FailedToSatisfyReadPreference] = "FailedToSatisfyReadPreference"
	names[StaleEpoch] = "StaleEpoch"
	names[RetryChangeStream] = "RetryChangeStream"
	names[ConnectionPoolExpired] = "ConnectionPoolExpired"
	names[InternalTransactionNotSupported] = "InternalTransactionNotSupported"
	names[BackupCursorOpenConflictWithCheckpoint] = "BackupCursorOpenConflictWithCheckpoint"
}

// ResumableChangeStreamCode reports whether mongod 7.0 labels an error
// of an aggregate or getMore of a change stream with code c
// ResumableChangeStreamError (ErrorLabelBuilder::isResumableChangeStreamError):
// its RetriableError, NetworkError and NeedRetargettingError categories,
// RetryChangeStream and FailedToSatisfyReadPreference.
func ResumableChangeStreamCode(c Code) bool {
	switch c {
	// RetriableError (with NetworkError's codes among them)
	case HostUnreachable, HostNotFound, NetworkTimeout, ShutdownInProgress,
		ReadConcernMajorityNotAvailableYet, PrimarySteppedDown, ExceededTimeLimit,
		ConnectionPoolExpired, InternalTransactionNotSupported, SocketException,
		NotWritablePrimary, InterruptedAtShutdown, InterruptedDueToReplStateChange,
		NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary, BackupCursorOpenConflictWithCheckpoint:
		return true
	// NeedRetargettingError (StaleShardVersion, 63, is obsolete in 7.0)
	case StaleEpoch, StaleConfig:
		return true
	case RetryChangeStream, FailedToSatisfyReadPreference:
		return true
	}
	return false
}

// NonResumableChangeStreamCode reports mongod's
// NonResumableChangeStreamError category: any command failing with one
// of these codes is labelled NonResumableChangeStreamError.
func NonResumableChangeStreamCode(c Code) bool {
	return c == ChangeStreamFatalError || c == ChangeStreamHistoryLost
}
