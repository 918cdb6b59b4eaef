//go:build !cgo

package main

// storageInGoHeap reports whether Pebble allocates its block cache and
// memtables in the Go heap: it does without cgo.
const storageInGoHeap = true
