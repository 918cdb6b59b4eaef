//go:build linux && cgo

package main

import (
	"os"
	"syscall"
)

// reexecWithHugePages starts `lode serve` again, in the same process
// (execve keeps the PID), with hugePagesTunables in GLIBC_TUNABLES,
// which glibc reads only when a process starts. It returns when that is
// not needed (--huge-pages=off, or the tunables are already set) or not
// possible (the executable cannot be found or run): the server then
// starts with the allocator as it is. On a virtual machine whose page
// faults trap to the hypervisor, a block cache filled 4 KiB at a time
// costs several per cent of a load's server time (docs/benchmarks.md,
// twenty-second session). Other C libraries ignore the variable.
func reexecWithHugePages(args []string) {
	const restartedEnv = "LODE_HUGE_PAGES_RESTARTED"
	if len(args) < 1 || args[0] != "serve" || hugePagesSetting(args[1:]) != hugePagesTry {
		return
	}
	if os.Getenv(restartedEnv) != "" {
		return // at most one restart, whatever the C library made of the variable
	}
	v, changed := tunablesWithHugePages(os.Getenv("GLIBC_TUNABLES"))
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
