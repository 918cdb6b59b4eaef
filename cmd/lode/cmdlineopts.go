package main

import (
	"flag"
	"net"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// parsedOptions is getCmdLineOpts' parsed document, as mongod builds it:
// the options set by the configuration file or the command line, under
// their configuration file names (net.port, storage.dbPath, ...), with
// config naming the file. Lode's own flags without a mongod option are
// left out, as are defaults.
func parsedOptions(fs *flag.FlagSet, configPath string, params [][2]string) bsoncore.Document {
	optionOf := map[string]string{}
	for opt, fl := range configFlags {
		optionOf[fl] = opt
	}
	root := &optTree{}
	if configPath != "" {
		root.set("config", configPath)
	}
	seen := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		name := canonicalFlag(f.Name) // an alias shares its flag's value
		if seen[name] {
			return
		}
		seen[name] = true
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		v := g.Get()
		switch name {
		case "addr":
			if host, port, err := net.SplitHostPort(f.Value.String()); err == nil {
				root.set("net.bindIp", host)
				if p, err := strconv.Atoi(port); err == nil {
					root.set("net.port", p)
				}
			}
		case "auth":
			if b, _ := v.(bool); b {
				root.set("security.authorization", "enabled")
			} else {
				root.set("security.authorization", "disabled")
			}
		case "logpath":
			root.set("systemLog.destination", "file")
			root.set("systemLog.path", v)
		default:
			if opt, ok := optionOf[name]; ok {
				root.set(opt, v)
			}
		}
	})
	for _, p := range params {
		root.set("setParameter."+p[0], p[1])
	}
	return root.build()
}

// optTree is a document of dotted option names, in the order set.
type optTree struct {
	keys []string
	vals map[string]any // a value, or a *optTree
}

func (t *optTree) set(path string, v any) {
	head, rest, nested := strings.Cut(path, ".")
	if t.vals == nil {
		t.vals = map[string]any{}
	}
	if _, ok := t.vals[head]; !ok {
		t.keys = append(t.keys, head)
	}
	if !nested {
		t.vals[head] = v
		return
	}
	sub, ok := t.vals[head].(*optTree)
	if !ok {
		sub = &optTree{}
		t.vals[head] = sub
	}
	sub.set(rest, v)
}

func (t *optTree) build() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, k := range t.keys {
		switch v := t.vals[k].(type) {
		case *optTree:
			b.AppendDocument(k, v.build())
		case string:
			b.AppendString(k, v)
		case bool:
			b.AppendBoolean(k, v)
		case int:
			b.AppendInt32(k, int32(v))
		case int64:
			b.AppendInt64(k, v)
		case float64:
			b.AppendDouble(k, v)
		default:
			b.AppendString(k, flagString(v))
		}
	}
	return b.Build()
}

// flagString renders a flag value of another type as text.
func flagString(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return ""
}
