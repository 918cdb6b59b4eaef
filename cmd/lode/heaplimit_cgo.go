//go:build cgo

package main

// storageInGoHeap reports whether Pebble allocates its block cache and
// memtables in the Go heap: not with cgo, where it uses C's allocator.
const storageInGoHeap = false
