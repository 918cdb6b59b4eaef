package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// lode serve --config reads a mongod configuration file (YAML, mongod's
// "configuration file options") and sets serve's flags from the options
// that map onto Lode; a flag given on the command line wins over the
// file, as with mongod. An option Lode cannot honour is refused by name,
// never ignored: the server does not start (exit status 2, mongod's
// EXIT_BADOPTIONS).

// configSetting is one flag value a configuration file sets.
type configSetting struct {
	option string // the file's dotted option name, for messages
	flag   string // the serve flag it sets
	value  string
}

// configFlags maps the file's options onto serve's flags, for the options
// whose value is the flag's value as it is.
var configFlags = map[string]string{
	"net.port":                                    "port",
	"net.bindIp":                                  "bind_ip",
	"net.maxIncomingConnections":                  "max-connections",
	"net.tls.mode":                                "tls-mode",
	"net.tls.certificateKeyFile":                  "tls-cert-file",
	"net.tls.CAFile":                              "tls-ca-file",
	"storage.dbPath":                              "dir",
	"systemLog.path":                              "logpath",
	"systemLog.logAppend":                         "logappend",
	"systemLog.logRotate":                         "logRotate",
	"replication.replSetName":                     "replset",
	"replication.oplogSizeMB":                     "oplog-size-mb",
	"processManagement.timeZoneInfo":              "timeZoneInfo",
	"operationProfiling.slowOpThresholdMs":        "slowms",
	"operationProfiling.slowOpSampleRate":         "slow-op-sample-rate",
	"storage.wiredTiger.engineConfig.cacheSizeGB": "cache-size-gb",
	"net.tls.allowConnectionsWithoutCertificates": "tls-allow-connections-without-certificates",
}

// configRefusals say why some common mongod options are refused; any
// other option not mapped is refused with a general message.
var configRefusals = map[string]string{
	"storage.journal.enabled":            "Lode always writes its write-ahead log (MongoDB 7.0 removed this option as well)",
	"storage.engine":                     "Lode has one storage engine (Pebble); remove the option",
	"storage.directoryPerDB":             "Lode keeps every database in one key space",
	"processManagement.fork":             "Lode does not daemonize: run it under a service manager (systemd, launchd) instead",
	"processManagement.pidFilePath":      "Lode writes no pid file: a service manager tracks the process",
	"systemLog.quiet":                    "Lode has no quiet mode; use --log-level warn",
	"systemLog.syslogFacility":           "Lode does not log to syslog",
	"security.keyFile":                   "Lode is a single server: it has no replica-set or sharded-cluster members to authenticate",
	"security.clusterAuthMode":           "Lode is a single server: it has no cluster members to authenticate",
	"security.javascriptEnabled":         "Lode runs no server-side JavaScript",
	"net.tls.certificateKeyFilePassword": "Lode reads only unencrypted private keys: decrypt the key file (openssl pkey) and protect it with file permissions",
	"sharding.clusterRole":               "Lode is not a sharded-cluster member",
}

// loadConfigFile reads a mongod configuration file into flag settings
// and the setParameter names and values, in the file's order.
func loadConfigFile(path string) (*configReader, error) {
	c := &configReader{file: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the configuration file: %w", err)
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file sets nothing
		}
		return nil, fmt.Errorf("configuration file %s is not valid YAML (Lode reads mongod's YAML format, not the legacy key=value one): %w", path, err)
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("configuration file %s: want a mapping of options (net:, storage:, ...) at the top", path)
	}
	if err := c.mapping("", root); err != nil {
		return nil, err
	}
	return c, nil
}

type configReader struct {
	file     string
	settings []configSetting
	params   [][2]string
	seen     map[string]bool
	// destination is systemLog.destination ("" when not given).
	destination string
}

func (c *configReader) errorf(option string, format string, args ...any) error {
	return fmt.Errorf("configuration file %s: %s: %s", c.file, option, fmt.Sprintf(format, args...))
}

// mapping reads the options under prefix.
func (c *configReader) mapping(prefix string, m *yaml.Node) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i].Value, m.Content[i+1]
		name := key
		if prefix != "" {
			name = prefix + "." + key
		}
		if c.seen == nil {
			c.seen = map[string]bool{}
		}
		if c.seen[name] {
			return c.errorf(name, "given twice")
		}
		c.seen[name] = true
		if name == "setParameter" {
			if err := c.setParameters(val); err != nil {
				return err
			}
			continue
		}
		if val.Kind == yaml.MappingNode {
			if _, mapped := configFlags[name]; !mapped {
				if err := c.mapping(name, val); err != nil {
					return err
				}
				continue
			}
		}
		if err := c.option(name, val); err != nil {
			return err
		}
	}
	return nil
}

// scalar returns the text of a scalar option value.
func (c *configReader) scalar(name string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", c.errorf(name, "want a single value")
	}
	return v.Value, nil
}

// option reads one option with a value that is not a mapping.
func (c *configReader) option(name string, v *yaml.Node) error {
	if why, ok := configRefusals[name]; ok {
		return c.errorf(name, "not supported by Lode: %s", why)
	}
	set := func(flag, value string) {
		c.settings = append(c.settings, configSetting{option: name, flag: flag, value: value})
	}
	if flag, ok := configFlags[name]; ok {
		s, err := c.scalar(name, v)
		if err != nil {
			return err
		}
		set(flag, s)
		return nil
	}
	s, err := c.scalar(name, v)
	switch name {
	case "net.bindIpAll":
		if err != nil {
			return err
		}
		if on, perr := strconv.ParseBool(s); perr != nil {
			return c.errorf(name, "want true or false, got %q", s)
		} else if on {
			set("bind_ip", "0.0.0.0")
		}
		return nil
	case "systemLog.destination":
		if err != nil {
			return err
		}
		switch s {
		case "file":
			c.destination = s // checked with systemLog.path in applyConfig
			return nil
		case "syslog":
			return c.errorf(name, "syslog is not supported by Lode: log to a file (destination: file, with path) or to stderr (no systemLog.destination)")
		}
		return c.errorf(name, "want file, got %q", s)
	case "systemLog.verbosity":
		if err != nil {
			return err
		}
		n, perr := strconv.Atoi(s)
		if perr != nil || n < 0 || n > 5 {
			return c.errorf(name, "want a verbosity from 0 to 5, got %q", s)
		}
		level := "info"
		if n > 0 {
			level = "debug" // Lode has one debug level for mongod's five
		}
		set("log-level", level)
		return nil
	case "security.authorization":
		if err != nil {
			return err
		}
		switch s {
		case "enabled":
			set("auth", "true")
		case "disabled":
			set("auth", "false")
		default:
			return c.errorf(name, "want enabled or disabled, got %q", s)
		}
		return nil
	case "operationProfiling.mode":
		if err != nil {
			return err
		}
		if s != "off" {
			return c.errorf(name, "%q is not supported at startup by Lode: start with off and set the level with the profile command (db.setProfilingLevel)", s)
		}
		return nil
	case "net.unixDomainSocket.enabled":
		if err != nil {
			return err
		}
		if on, perr := strconv.ParseBool(s); perr != nil || on {
			return c.errorf(name, "Lode listens on TCP only: set it to false or remove it")
		}
		return nil
	}
	return c.errorf(name, "not supported by Lode (it cannot honour this mongod option, so it does not start rather than ignore it; docs/configuration.md lists the options it reads)")
}

// setParameters reads the setParameter mapping.
func (c *configReader) setParameters(m *yaml.Node) error {
	if m.Kind != yaml.MappingNode {
		return c.errorf("setParameter", "want a mapping of parameter names to values")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		name := m.Content[i].Value
		v, err := c.scalar("setParameter."+name, m.Content[i+1])
		if err != nil {
			return err
		}
		c.params = append(c.params, [2]string{name, v})
	}
	return nil
}

// configOptionNames lists the file options Lode reads, for docs and tests.
func configOptionNames() []string {
	names := []string{"net.bindIpAll", "systemLog.destination", "systemLog.verbosity", "security.authorization",
		"operationProfiling.mode", "net.unixDomainSocket.enabled", "setParameter"}
	for n := range configFlags {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// applyConfig sets fs's flags from the file's settings, skipping those
// given on the command line (given holds their names, aliases resolved),
// and returns the file's setParameter pairs whose names the command line
// did not set (cliParams).
func applyConfig(fs *flag.FlagSet, path string, given, cliParams map[string]bool) ([][2]string, error) {
	c, err := loadConfigFile(path)
	if err != nil {
		return nil, err
	}
	hasPath := false
	for _, s := range c.settings {
		hasPath = hasPath || s.option == "systemLog.path"
	}
	// As mongod: a path needs destination: file, and destination: file a
	// path.
	if hasPath && c.destination != "file" {
		return nil, fmt.Errorf("configuration file %s: systemLog.path requires systemLog.destination to be set to \"file\"", path)
	}
	if c.destination == "file" && !hasPath {
		return nil, fmt.Errorf("configuration file %s: systemLog.destination \"file\" requires systemLog.path", path)
	}
	for _, s := range c.settings {
		if given[canonicalFlag(s.flag)] {
			continue
		}
		if err := fs.Set(s.flag, s.value); err != nil {
			return nil, fmt.Errorf("configuration file %s: %s: %w", path, s.option, err)
		}
	}
	var out [][2]string
	for _, p := range c.params {
		if !cliParams[p[0]] {
			out = append(out, p)
		}
	}
	return out, nil
}
