//go:build linux && cgo

package main

import (
	"os"
	"syscall"
)

// reexecWithMallocTunables starts `lode serve` again, in the same process
// (execve keeps the PID), with mallocTunables in GLIBC_TUNABLES, which
// glibc reads only when a process starts: one arena, and with
// --huge-pages try huge page advice. It returns when that is not needed
// (the operator's GLIBC_TUNABLES already sets either tunable) or not
// possible (the executable cannot be found or run): the server then
// starts with the allocator as it is. Other C libraries ignore the
// variable.
func reexecWithMallocTunables(args []string) {
	const restartedEnv = "LODE_HUGE_PAGES_RESTARTED"
	if len(args) < 1 || args[0] != "serve" {
		return
	}
	if os.Getenv(restartedEnv) != "" {
		return // at most one restart, whatever the C library made of the variable
	}
	v, changed := tunablesWith(os.Getenv("GLIBC_TUNABLES"), mallocTunables(hugePagesSetting(args[1:])))
	if !changed {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := withEnv(withEnv(os.Environ(), "GLIBC_TUNABLES", v), restartedEnv, "1")
	_ = syscall.Exec(exe, append([]string{os.Args[0]}, args...), env)
}
