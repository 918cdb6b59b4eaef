//go:build !linux || !cgo

package main

// reexecWithMallocTunables does nothing without glibc's allocator under
// Pebble (a build without cgo keeps the block cache in the Go heap) or
// off Linux.
func reexecWithMallocTunables(args []string) {}
