package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/lodedb/lode/internal/mongolog"
)

// listenAddrs returns the addresses lode serve listens on: --addr, or
// mongod's --bind_ip (one address or several, comma-separated) and
// --port, each defaulting to --addr's part.
func listenAddrs(addr, bindIP string, port int) ([]string, error) {
	if bindIP == "" && port == 0 {
		return []string{addr}, nil
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("bad --addr %q: want host:port: %v", addr, err)
	}
	if port != 0 {
		if port < 1 || port > 65535 {
			return nil, fmt.Errorf("bad --port %d: want a port from 1 to 65535", port)
		}
		p = strconv.Itoa(port)
	}
	hosts := []string{host}
	if bindIP != "" {
		hosts = hosts[:0]
		for _, h := range strings.Split(bindIP, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
		if len(hosts) == 0 {
			return nil, fmt.Errorf("bad --bind_ip %q: want an address, or addresses separated by commas", bindIP)
		}
	}
	out := make([]string, len(hosts))
	for i, h := range hosts {
		out[i] = net.JoinHostPort(h, p)
	}
	return out, nil
}

// listenerAddrs is the listeners' addresses for the startup line.
func listenerAddrs(lns []net.Listener) string {
	s := make([]string, len(lns))
	for i, l := range lns {
		s[i] = l.Addr().String()
	}
	return strings.Join(s, ",")
}

// openLogOutput returns where the log goes: stderr, or with --logpath
// the log file, opened as --logappend and --logRotate say.
func openLogOutput(path string, appendLog bool, rotate string) (io.Writer, *mongolog.File, error) {
	if rotate != "rename" && rotate != "reopen" {
		return nil, nil, usageError{fmt.Sprintf("bad --logRotate %q: want rename or reopen", rotate)}
	}
	if path == "" {
		return os.Stderr, nil, nil
	}
	if rotate == "reopen" && !appendLog {
		return nil, nil, usageError{"--logRotate reopen needs --logappend (systemLog.logAppend: true): the file reopened after logrotate moved it is appended to"}
	}
	lf, err := mongolog.OpenFile(path, appendLog, rotate == "reopen")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open the log file (--logpath): %w", err)
	}
	return lf, lf, nil
}

// rotateLog is server.Config.RotateLog for the log file lf (nil: no log
// file, nothing to rotate).
func rotateLog(lf *mongolog.File) func() (string, error) {
	if lf == nil {
		return nil
	}
	return lf.Rotate
}

// rotateOnSignal rotates lf on SIGUSR1, as mongod does, until the
// returned function is called.
func rotateOnSignal(log *slog.Logger, lf *mongolog.File) (stop func()) {
	sigs := rotateSignals()
	if len(sigs) == 0 {
		return func() {}
	}
	c := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(c, sigs...)
	go func() {
		for {
			select {
			case <-c:
				log.Info("Log rotation initiated", mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDLogRotate, "signal", "SIGUSR1")
				if _, err := lf.Rotate(); err != nil {
					log.Warn("Log rotation failed", mongolog.KeyComponent, "CONTROL", "reason", err.Error())
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(c); close(done) }
}
