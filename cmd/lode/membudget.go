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
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb / 1024 / 2
		}
	}
	return 0
}

// residentFileBytes is the process's resident file-backed memory (RssFile
// in /proc/self/status: its own text and data, mapped libraries), which
// counts in RSS but not in the Go runtime's memory limit; 0 where unknown.
func residentFileBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "RssFile:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
