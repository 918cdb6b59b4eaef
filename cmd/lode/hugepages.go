package main

import (
	"fmt"
	"strings"
)

// --huge-pages: whether `lode serve` lets C's allocator, which holds
// Pebble's block cache and memtables, back them with transparent huge
// pages. Like PostgreSQL's huge_pages setting: "try" (the default) asks
// and goes on without them when they cannot be had, "off" leaves the
// allocator as the system configures it.
const (
	hugePagesTry = "try"
	hugePagesOff = "off"
)

// hugePagesTunables are the glibc malloc tunables "try" sets: huge page
// advice (MADV_HUGEPAGE) on the memory malloc takes from the kernel, and
// one arena, since glibc gives that advice to its main arena and its
// direct mappings but not to the per-thread arenas where the cgo calls
// of Go's threads would otherwise allocate.
const hugePagesTunables = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1"

func checkHugePages(v string) error {
	if v != hugePagesTry && v != hugePagesOff {
		return fmt.Errorf("bad --huge-pages %q: want try or off", v)
	}
	return nil
}

// hugePagesSetting returns --huge-pages's value as given on a `lode
// serve` command line (args without the program name and command), or
// "try"; main reads it before the flags are parsed, since the tunables
// must be in the environment when the process starts.
func hugePagesSetting(args []string) string {
	v := hugePagesTry
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "huge-pages" {
			continue
		}
		if !hasVal && i+1 < len(args) {
			val = args[i+1]
		}
		v = val
	}
	return v
}

// tunablesWithHugePages returns the GLIBC_TUNABLES value that adds
// hugePagesTunables to env's, and whether it differs: a value that
// already sets either tunable is the operator's choice and is kept.
func tunablesWithHugePages(env string) (string, bool) {
	if strings.Contains(env, "glibc.malloc.hugetlb") || strings.Contains(env, "glibc.malloc.arena_max") {
		return env, false
	}
	if env == "" {
		return hugePagesTunables, true
	}
	return env + ":" + hugePagesTunables, true
}

// withEnv returns env (NAME=value entries) with name set to value: its
// entries for name replaced by one, so that the restarted process reads
// the new value whichever entry its C library or Go's os.Getenv takes
// (an appended duplicate left the operator's first, and the restart
// would then restart again).
func withEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if !strings.HasPrefix(e, name+"=") {
			out = append(out, e)
		}
	}
	return append(out, name+"="+value)
}
