package server

// Version facts reported to clients. Lode follows MongoDB 7.0 semantics.
const (
	// MongoVersion is the MongoDB version Lode reports in buildInfo.
	MongoVersion = "7.0.14"
	// MaxWireVersion is MongoDB 7.0's wire version.
	MaxWireVersion = 21
	// LogicalSessionTimeoutMinutes is reported by hello.
	LogicalSessionTimeoutMinutes = 30
)

var versionArray = []int32{7, 0, 14, 0}
