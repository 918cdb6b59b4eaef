//go:build !unix

package server

// maxOpenFiles is unknown off Unix; serverStatus then reports mongod's
// default connection maximum.
func maxOpenFiles() (int64, bool) { return 0, false }
