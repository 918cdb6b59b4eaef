// Package embedding holds the tests of Lode embedded in a Go program
// through lode.Open: in-process connections, several instances in one
// process, and the errors Open gives for a busy directory or port.
package embedding
