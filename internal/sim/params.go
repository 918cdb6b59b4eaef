package sim

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Params are a scenario's tunables (collection, preload size, ...).
// Values come from the scenario's defaults, a simulation file or the
// command line (--param key=value).
type Params map[string]any

// Merge returns a copy of p overlaid with o.
func (p Params) Merge(o Params) Params {
	out := Params{}
	maps.Copy(out, p)
	maps.Copy(out, o)
	return out
}

// Keys returns the parameter names in sorted order.
func (p Params) Keys() []string { return slices.Sorted(maps.Keys(p)) }

// Int returns p[key] as an int, or def when absent or not a number.
func (p Params) Int(key string, def int) int {
	switch v := p[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	case uint64:
		return int(v)
	case string:
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// String returns p[key] as a string, or def when absent.
func (p Params) String(key, def string) string {
	if v, ok := p[key]; ok && v != nil {
		return fmt.Sprint(v)
	}
	return def
}

// Bool returns p[key] as a bool, or def when absent.
func (p Params) Bool(key string, def bool) bool {
	switch v := p[key].(type) {
	case bool:
		return v
	case string:
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return def
}

// ParseParam parses "key=value" into p, converting integers, floats and
// booleans.
func (p Params) ParseParam(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return fmt.Errorf("param %q: want key=value", kv)
	}
	if n, err := strconv.Atoi(v); err == nil {
		p[k] = n
	} else if f, err := strconv.ParseFloat(v, 64); err == nil {
		p[k] = f
	} else if b, err := strconv.ParseBool(v); err == nil {
		p[k] = b
	} else {
		p[k] = v
	}
	return nil
}
