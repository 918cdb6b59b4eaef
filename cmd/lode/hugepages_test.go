package main

import (
	"strings"
	"testing"
)

func TestHugePagesSetting(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "try"},
		{[]string{"--dir", "d"}, "try"},
		{[]string{"--huge-pages=off"}, "off"},
		{[]string{"-huge-pages", "off", "--dir", "d"}, "off"},
		{[]string{"--huge-pages", "off", "--huge-pages=try"}, "try"}, // the last wins, as in flag
		{[]string{"--", "--huge-pages=off"}, "try"},
		{[]string{"--dir", "--huge-pages=off"}, "off"}, // read as the flag, as flag would not: harmless, the setting only skips the restart
	} {
		if got := hugePagesSetting(c.args); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}

func TestTunablesWithHugePages(t *testing.T) {
	for _, c := range []struct {
		env, want string
		changed   bool
	}{
		{"", "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1", true},
		{"glibc.malloc.trim_threshold=1048576", "glibc.malloc.trim_threshold=1048576:glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1", true},
		{"glibc.malloc.hugetlb=0", "glibc.malloc.hugetlb=0", false},
		{"glibc.malloc.arena_max=8", "glibc.malloc.arena_max=8", false},
	} {
		got, changed := tunablesWithHugePages(c.env)
		if got != c.want || changed != c.changed {
			t.Errorf("%q: %q %v, want %q %v", c.env, got, changed, c.want, c.changed)
		}
	}
}

func TestWithEnv(t *testing.T) {
	got := withEnv([]string{"A=1", "GLIBC_TUNABLES=x", "GLIBC_TUNABLESX=y", "GLIBC_TUNABLES=z"}, "GLIBC_TUNABLES", "x:h")
	want := []string{"A=1", "GLIBC_TUNABLESX=y", "GLIBC_TUNABLES=x:h"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("withEnv: %q, want %q", got, want)
	}
}
