package main

import (
	"fmt"
	"log/slog"
	"net"
)

// checkExposure refuses to serve a non-loopback address without
// authentication unless the operator said so with --insecure-no-auth, and
// then warns at every start.
func checkExposure(addr string, authOn, insecure bool, log *slog.Logger) error {
	if authOn || isLoopbackAddr(addr) {
		return nil
	}
	if !insecure {
		return fmt.Errorf("refusing to listen on %s without --auth: any client that reaches it could read, write and drop every database. Start with --auth (and create a user), listen on 127.0.0.1, or pass --insecure-no-auth to serve it open anyway", addr)
	}
	log.Warn("serving without authentication on a non-loopback address: anyone who reaches this port can read, write and drop every database", "addr", addr)
	return nil
}

// isLoopbackAddr reports whether host:port only listens on this machine.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
