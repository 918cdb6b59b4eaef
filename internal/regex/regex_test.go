package regex

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEnginesAgree runs patterns that RE2 accepts on both engines, with
// every option, and wants the same matches and groups: a pattern that
// falls back to the backtracking engine for a backreference keeps the
// meaning of the rest of its syntax and of its options.
func TestEnginesAgree(t *testing.T) {
	patterns := []string{`^abc$`, `a.c`, `^\w+$`, `\d+`, `(?P<x>b)(c)?`, `[[:alpha:]]+`, `\bfoo\b`, `É`, `^$`,
		"a # comment\n b", `[a-c ]+`, `\s`, `(a|ab)(c|bcd)`, `x*`, `\Aab\z`}
	subjects := []string{"abc", "ABC", "a\nbc", "abc\n", "x\nabc\ny", "éa", "foo bar", "é", "", "ab", "a b", "abcd", "xx"}
	for _, opts := range []string{"", "i", "m", "s", "x", "u", "ims", "imsx"} {
		for _, pat := range patterns {
			p, err := prepare(pat, opts)
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile(p)
			bt, err := compileBacktracking(p)
			if err != nil {
				t.Fatalf("/%s/%s: %v", pat, opts, err)
			}
			b := &Regex{bt: bt}
			for _, s := range subjects {
				got, err := b.FindStringSubmatchIndex(s)
				if err != nil {
					t.Fatal(err)
				}
				if want := re.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
					t.Errorf("/%s/%s on %q: backtracking %v, RE2 %v", pat, opts, s, got, want)
				}
			}
		}
	}
}

func TestCompileFallsBack(t *testing.T) {
	for _, p := range []string{`(a)\1`, `a(?=b)`, `(?<=a)b`, `(?<!a)b`, `(?>a+)b`, `a{1001}`} {
		r, err := Compile(p, "")
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !r.Backtracking() {
			t.Errorf("%s runs on RE2", p)
		}
	}
	if r, _ := Compile(`a+b`, "i"); r.Backtracking() {
		t.Error("a+b should run on RE2")
	}
	if _, err := Compile(`(a`, ""); err == nil || err.Error() != "missing closing ): `(a`" {
		t.Errorf("(a: %v", err)
	}
	if _, err := Compile(`a`, "g"); err == nil || !strings.Contains(err.Error(), "invalid flag in regex options: g") {
		t.Errorf("option g: %v", err)
	}
}

func TestMatchLimit(t *testing.T) {
	r, err := Compile(`^(a+)+\1$`, "")
	if err != nil {
		t.Fatal(err)
	}
	epoch := SlowEpoch()
	start := time.Now()
	_, err = r.MatchString(strings.Repeat("a", 64) + "b")
	if err != ErrMatchLimit {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
	if SlowEpoch() == epoch {
		t.Fatal("SlowEpoch did not move")
	}
}

// FuzzCompile compiles any pattern with any options and runs it: no
// panic, every error is a syntax error, an option error or the match
// limit, and no call runs for long.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{`(a)\1`, `(?<=a)b`, `a{1001}`, `(a+)+$`, `[[:alpha:]]`, `\Q.\E`, `(?>a)`, `a++`} {
		f.Add(s, "i", "aab")
	}
	f.Fuzz(func(t *testing.T, pattern, options, subject string) {
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("/%q/%q on %q took %v", pattern, options, subject, d)
			}
		}()
		r, err := Compile(pattern, options)
		if err != nil {
			return
		}
		if _, err := r.MatchString(subject); err != nil && err != ErrMatchLimit {
			t.Fatal(err)
		}
		if _, err := r.FindAllStringSubmatchIndex(subject); err != nil && err != ErrMatchLimit {
			t.Fatal(err)
		}
	})
}
