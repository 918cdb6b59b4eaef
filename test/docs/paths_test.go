// Package docs checks that the repository paths the documentation names
// exist, so a file that moves or goes away cannot leave a stale reference
// behind in README.md, docs/*.md or docs/design/*.md.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// topDirs are the repository's top-level directories. A token counts as a
// repository path only if it starts with one of them (or, for a relative
// link, resolves inside the repository).
var topDirs = []string{"cmd", "internal", "test", "docs", "patterns", "examples", "scripts", ".ci"}

var (
	backtickRe = regexp.MustCompile("`([^`\n]+)`")
	linkRe     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// A bare path in prose: a known top-level directory, at least one more
	// segment, and a file extension, not preceded by a character that would
	// make it part of a URL or a longer path.
	barePrefix = `(?:cmd|internal|test|docs|patterns|examples|scripts|\.ci)`
	bareRe     = regexp.MustCompile(`(?:^|[^\w./-])(` + barePrefix + `/[\w./*-]*\w\.[a-z]+)\b`)
	fencedRe   = regexp.MustCompile("(?ms)^```.*?^```")
)

// docFiles returns the documents the check covers, relative to root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"README.md", "docs/*.md", "docs/design/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}

// looksLikeRepoPath reports whether a backticked token names a path in
// the repository: no spaces, and a known top-level directory followed by
// a slash.
func looksLikeRepoPath(tok string) bool {
	if strings.ContainsAny(tok, " \t()<>=,;'\"$") || strings.Contains(tok, "://") {
		return false
	}
	for _, d := range topDirs {
		if strings.HasPrefix(tok, d+"/") {
			return true
		}
	}
	return false
}

// clean drops what follows the path itself: an anchor, a line number, a
// trailing "/..." (a package tree) or a trailing slash.
func clean(p string) string {
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	if i := strings.IndexByte(p, ':'); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSuffix(p, "/...")
	p = strings.TrimSuffix(p, "...")
	return strings.TrimSuffix(p, "/")
}

// exists reports whether the repository path (which may hold * or ?
// wildcards, or one {a,b} alternation) names at least one file or directory.
func exists(root, p string) bool {
	if i := strings.IndexByte(p, '{'); i >= 0 {
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			return false
		}
		for _, alt := range strings.Split(p[i+1:i+j], ",") {
			if !exists(root, p[:i]+alt+p[i+j+1:]) {
				return false
			}
		}
		return true
	}
	full := filepath.Join(root, filepath.FromSlash(p))
	if strings.ContainsAny(p, "*?[") {
		m, err := filepath.Glob(full)
		return err == nil && len(m) > 0
	}
	_, err := os.Stat(full)
	return err == nil
}

// namedPaths returns the repository paths a document names, relative to
// the repository root: backticked tokens that look like repository paths,
// bare paths with an extension under a known directory, and the targets
// of relative links (resolved against the document's directory). Fenced
// code blocks are skipped: they show layouts and commands, not paths.
func namedPaths(doc, text string) []string {
	text = fencedRe.ReplaceAllString(text, "")
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = clean(p)
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, m := range backtickRe.FindAllStringSubmatch(text, -1) {
		if looksLikeRepoPath(m[1]) {
			add(m[1])
		}
	}
	// Bare paths: drop backticked spans and link targets first, which the
	// other two rules handle.
	prose := backtickRe.ReplaceAllString(text, " ")
	prose = linkRe.ReplaceAllString(prose, "] ")
	for _, m := range bareRe.FindAllStringSubmatch(prose, -1) {
		add(strings.TrimRight(m[1], "."))
	}
	for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
			continue
		}
		target = clean(target)
		if target == "" {
			continue
		}
		add(filepath.ToSlash(filepath.Join(filepath.Dir(doc), target)))
	}
	return out
}

func TestDocumentedPathsExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := docFiles(t, root)
	if len(files) < 3 {
		t.Fatalf("found only %v under %s: is the test run from test/docs?", files, root)
	}
	var missing []string
	checked := 0
	for _, doc := range files {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range namedPaths(doc, string(b)) {
			checked++
			if strings.HasPrefix(p, "../") {
				missing = append(missing, doc+": "+p+" (outside the repository)")
				continue
			}
			if !exists(root, p) {
				missing = append(missing, doc+": "+p)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d paths named in the documentation do not exist:\n\t%s",
			len(missing), checked, strings.Join(missing, "\n\t"))
	}
	t.Logf("checked %d paths in %d documents", checked, len(files))
}

func TestNamedPaths(t *testing.T) {
	text := "See `internal/server/dispatch.go` and `cmd/lode serve`, " +
		"[sim](sim.md#top), [go](https://example.com/internal/x.go), " +
		"(internal/engine/txn.go, views.go), `engine.Options`, `storage/fail.go`.\n" +
		"```\ninternal/nothing/here.go\n```\n"
	got := namedPaths("docs/design/x.md", text)
	want := []string{"internal/server/dispatch.go", "internal/engine/txn.go", "docs/design/sim.md"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("namedPaths = %q, want %q", got, want)
	}
}
