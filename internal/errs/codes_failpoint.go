package errs

// Codes the failCommand failpoint and configureFailPoint report, and the
// retryable codes drivers' tests most often make it raise; mongod's names.
const (
	PrimarySteppedDown              Code = 189
	FailPointSetFailed              Code = 266
	SocketException                 Code = 9001
	InterruptedDueToReplStateChange Code = 11602
	// FailCommandClosedConnection is the assertion mongod raises (and logs)
	// when failCommand closes the connection; the client never sees it.
	FailCommandClosedConnection Code = 50985
)

func init() {
	names[PrimarySteppedDown] = "PrimarySteppedDown"
	names[FailPointSetFailed] = "FailPointSetFailed"
	names[SocketException] = "SocketException"
	names[InterruptedDueToReplStateChange] = "InterruptedDueToReplStateChange"
}
