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
		{[]string{"--huge-pages", "try", "--huge-pages=off"}, "off"},
		{[]string{"--", "--huge-pages=off"}, "try"},
		{[]string{"--dir", "--huge-pages=off"}, "off"}, // read as the flag, as flag would not: the only effect is the tunable
	} {
		if got := hugePagesSetting(c.args); got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}

func TestTunablesWith(t *testing.T) {
	if got := mallocTunables("try"); got != "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1" {
		t.Errorf("mallocTunables(try) = %q", got)
	}
	if got := mallocTunables("off"); got != "glibc.malloc.arena_max=1" {
		t.Errorf("mallocTunables(off) = %q", got)
	}
	const both = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1"
	for _, c := range []struct {
		env, ours, want string
		changed         bool
	}{
		{"", both, both, true},
		{"", "glibc.malloc.arena_max=1", "glibc.malloc.arena_max=1", true},
		{"glibc.malloc.trim_threshold=1048576", both, "glibc.malloc.trim_threshold=1048576:" + both, true},
		{"glibc.malloc.hugetlb=0", both, "glibc.malloc.hugetlb=0", false},
		{"glibc.malloc.arena_max=8", "glibc.malloc.arena_max=1", "glibc.malloc.arena_max=8", false},
	} {
		got, changed := tunablesWith(c.env, c.ours)
		if got != c.want || changed != c.changed {
			t.Errorf("%q + %q: %q %v, want %q %v", c.env, c.ours, got, changed, c.want, c.changed)
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
