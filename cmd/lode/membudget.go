package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// defaultMemoryBudgetMB is half the machine's memory (MemTotal in
// /proc/meminfo), or 0 (no budget) where that is unknown.
func defaultMemoryBudgetMB() int64 {
	kb, ok := procKB("/proc/meminfo", "MemTotal:")
	if !ok {
		return 0
	}
	return kb / 1024 / 2
}

// residentFileBytes is the process's resident file-backed memory (RssFile
// in /proc/self/status: its own text and data, mapped libraries), which
// counts in RSS but not in the Go runtime's memory limit; 0 where unknown.
func residentFileBytes() int64 {
	kb, _ := procKB("/proc/self/status", "RssFile:")
	return kb << 10
}

// procKB reads the value in kB of the line that starts with field in a
// /proc file laid out as "Field:   value kB".
func procKB(path, field string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == field {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}
