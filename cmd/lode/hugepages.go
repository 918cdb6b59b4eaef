package main

import (
	"fmt"
	"strings"
)

// --huge-pages: whether `lode serve` lets C's allocator, which holds
// Pebble's block cache and memtables, back them with transparent huge
// pages. Like PostgreSQL's huge_pages setting: "try" (the default) asks
// and goes on without them when they cannot be had; "off" does not ask.
// Either way the allocator runs with one arena (arenaTunable).
//
// Huge pages cut both ways here (docs/benchmarks.md, thirty-first
// session): the memtables' skiplist inserts cost less in them (w:1 and
// j:true inserts from 16 clients about 5% less server CPU per insert),
// while a block cache filling in them cost more (about 0.2 µs a document
// in the first index build after a load). The default keeps the
// inserts' gain. Without the one arena, index-driven queries served from
// the cache cost 12 to 17% more.
const (
	hugePagesTry = "try"
	hugePagesOff = "off"
	// hugePagesDefault is --huge-pages's value when it is not given.
	hugePagesDefault = hugePagesTry
)

// The glibc malloc tunables `lode serve` starts with. arenaTunable: one
// arena, so that Pebble's allocations from every Go thread's cgo calls
// share one heap (with glibc's default of eight per core, queries served
// from the cache cost more), and so that huge page advice, which glibc
// gives only to its main arena and its direct mappings, reaches them.
// hugePageTunable ("try"): huge page advice (MADV_HUGEPAGE) on the memory
// malloc takes from the kernel.
const (
	arenaTunable    = "glibc.malloc.arena_max=1"
	hugePageTunable = "glibc.malloc.hugetlb=1"
)

// mallocTunables returns the tunables for a --huge-pages setting.
func mallocTunables(hugePages string) string {
	if hugePages == hugePagesTry {
		return hugePageTunable + ":" + arenaTunable
	}
	return arenaTunable
}

func checkHugePages(v string) error {
	if v != hugePagesTry && v != hugePagesOff {
		return fmt.Errorf("bad --huge-pages %q: want try or off", v)
	}
	return nil
}

// hugePagesSetting returns --huge-pages's value as given on a `lode
// serve` command line (args without the program name and command), or
// hugePagesDefault; main reads it before the flags are parsed, since the
// tunables must be in the environment when the process starts.
func hugePagesSetting(args []string) string {
	v := hugePagesDefault
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

// tunablesWith returns the GLIBC_TUNABLES value that adds ours (from
// mallocTunables) to env's, and whether it differs: a value that already
// sets either glibc.malloc.hugetlb or glibc.malloc.arena_max is the
// operator's choice and is kept.
func tunablesWith(env, ours string) (string, bool) {
	if strings.Contains(env, "glibc.malloc.hugetlb") || strings.Contains(env, "glibc.malloc.arena_max") {
		return env, false
	}
	if env == "" {
		return ours, true
	}
	return env + ":" + ours, true
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
