//go:build !linux || !cgo

package main

// reexecWithHugePages does nothing without glibc's allocator under
// Pebble (a build without cgo keeps the block cache in the Go heap) or
// off Linux.
func reexecWithHugePages(args []string) {}
