package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// captureStderr runs f with os.Stderr sent to a file and returns what f
// wrote there.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stderr
	os.Stderr = tmp
	defer func() { os.Stderr = saved }()
	f()
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConfigFileEveryOption: a file giving every option Lode reads is
// applied without error (each maps onto a flag serve defines, with a
// value that flag takes); the start then fails on a command-line flag
// given a bad value, which shows the command line was read too.
func TestConfigFileEveryOption(t *testing.T) {
	t.Setenv("ZONEINFO", "") // --timeZoneInfo sets it; restored after the test
	dir := t.TempDir()
	conf := filepath.Join(dir, "mongod.conf")
	yaml := `net:
  port: 27999
  bindIp: 127.0.0.1,localhost
  bindIpAll: false
  maxIncomingConnections: 100
  unixDomainSocket:
    enabled: false
  tls:
    mode: disabled
    certificateKeyFile: ` + filepath.Join(dir, "none.pem") + `
    CAFile: ` + filepath.Join(dir, "none-ca.pem") + `
    allowConnectionsWithoutCertificates: true
storage:
  dbPath: ` + filepath.Join(dir, "data") + `
  wiredTiger:
    engineConfig:
      cacheSizeGB: 1.5
systemLog:
  destination: file
  path: ` + filepath.Join(dir, "mongod.log") + `
  logAppend: true
  logRotate: reopen
  verbosity: 1
security:
  authorization: enabled
operationProfiling:
  mode: "off"
  slowOpThresholdMs: 20
  slowOpSampleRate: 0.5
replication:
  replSetName: rs9
  oplogSizeMB: 64
processManagement:
  timeZoneInfo: /usr/share/zoneinfo
setParameter:
  localLogicalSessionTimeoutMinutes: 12
`
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat("/usr/share/zoneinfo"); err != nil || !st.IsDir() {
		t.Skip("no /usr/share/zoneinfo")
	}
	var code int
	out := captureStderr(t, func() { code = run([]string{"serve", "--config", conf, "--cache-size-gb", "0"}) })
	if code != 1 || !strings.Contains(out, "bad --cache-size-gb 0") || strings.Contains(out, "configuration file") {
		t.Fatalf("exit %d, stderr %q: want the configuration applied and the start refused on --cache-size-gb 0", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Error("the refused start created storage.dbPath")
	}
	// The refusal went to the log file, systemLog.path, not to stderr...
	// except the final error line, which lode prints on stderr.
	if b, err := os.ReadFile(filepath.Join(dir, "mongod.log")); err != nil {
		t.Errorf("systemLog.path was not opened: %v", err)
	} else if strings.Contains(string(b), "bad --cache-size-gb") {
		t.Errorf("the log file has the command-line error: %s", b)
	}
}

// TestConfigRefusals: each refused option is named with its reason and
// stops lode serve with status 2.
func TestConfigRefusals(t *testing.T) {
	dir := t.TempDir()
	for name, why := range configRefusals {
		parts := strings.Split(name, ".")
		var b strings.Builder
		for i, p := range parts {
			b.WriteString(strings.Repeat("  ", i) + p + ":")
			if i == len(parts)-1 {
				b.WriteString(" x")
			}
			b.WriteString("\n")
		}
		conf := filepath.Join(dir, name+".conf")
		if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var code int
		out := captureStderr(t, func() { code = run([]string{"serve", "--config", conf}) })
		if code != 2 || !strings.Contains(out, name+": not supported by Lode: "+why) {
			t.Errorf("%s: exit %d, stderr %q", name, code, out)
		}
	}
}

// TestNearestFlag: a mistyped flag is answered with the nearest of
// serve's flags, mongod's names included; a name far from every flag
// gets no suggestion.
func TestNearestFlag(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	for _, n := range []string{"addr", "dir", "port", "bind_ip", "logpath", "logappend", "log-level", "config", "cache-size-gb"} {
		fs.String(n, "", "")
	}
	addAliases(fs)
	for name, want := range map[string]string{
		"dbpth": "dbpath", "dbPath": "dbpath", "bindIp": "bind_ip", "bind-ip": "bind_ip", "logPath": "logpath",
		"prot": "port", "confg": "config", "cacheSizeGB": "cache-size-gb", "loglevel": "log-level",
		"wiredTigerCacheSizeGb": "wiredTigerCacheSizeGB", "nothing-like-any-flag": "",
	} {
		if got := nearestFlag(fs, name); got != want {
			t.Errorf("nearestFlag(%q) = %q, want %q", name, got, want)
		}
	}
}
