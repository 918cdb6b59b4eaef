//go:build tools

// Package runner pins the Go driver module whose unified test runner and
// specification files test/conformance runs against Lode.
package runner

import (
	_ "go.mongodb.org/mongo-driver/mongo/integration"
	_ "go.mongodb.org/mongo-driver/mongo/integration/unified"
)
