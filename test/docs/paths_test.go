// Package docs checks README.md, docs/*.md and docs/design/*.md against
// the tree: every repository path they name exists, and every link to a
// heading of a Markdown file names a heading that exists, so a file or a
// section that moves cannot leave a stale reference behind.
//
// A repository path is (1) a backticked token without spaces that starts
// with a top-level directory (cmd/, internal/, test/, docs/, patterns/,
// examples/, scripts/, .ci/), (2) such a path with a file extension
// written bare in prose, or (3) the target of a relative link, resolved
// against the document's directory. Fenced code blocks are skipped. An
// anchor, a :line suffix and a trailing /... are dropped; * and ? are
// globs that must match something. Bare file names (`authz.go`) and
// paths that drop internal/ (`storage/fail.go`) are read in their
// context and not checked.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
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

var (
	headingRe  = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$`)
	anchorRe   = regexp.MustCompile(`\]\(([^)\s#]*)#([^)\s]+)\)`)
	slugDropRe = regexp.MustCompile(`[^\p{L}\p{N}\p{M} _-]`)
)

// anchors returns the anchors GitHub gives the headings of a Markdown
// text: lower case, punctuation dropped, spaces as hyphens, and a -1, -2
// ... suffix for repeated headings.
func anchors(text string) map[string]bool {
	text = fencedRe.ReplaceAllString(text, "")
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range headingRe.FindAllStringSubmatch(text, -1) {
		s := strings.ReplaceAll(slugDropRe.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		n := seen[s]
		seen[s] = n + 1
		if n > 0 {
			s += "-" + strconv.Itoa(n)
		}
		out[s] = true
	}
	return out
}

// TestDocumentedAnchorsExist checks that every link to a heading of a
// Markdown file in the repository (file.md#anchor, or #anchor in the same
// file) names a heading that exists, so a section that moves takes its
// links along.
func TestDocumentedAnchorsExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string]map[string]bool{}
	headings := func(p string) (map[string]bool, bool) {
		if a, ok := cache[p]; ok {
			return a, a != nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			cache[p] = nil
			return nil, false
		}
		cache[p] = anchors(string(b))
		return cache[p], true
	}
	var missing []string
	for _, doc := range docFiles(t, root) {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		text := fencedRe.ReplaceAllString(string(b), "")
		for _, m := range anchorRe.FindAllStringSubmatch(text, -1) {
			target := doc
			if m[1] != "" {
				if strings.Contains(m[1], "://") || !strings.HasSuffix(m[1], ".md") {
					continue
				}
				target = filepath.ToSlash(filepath.Join(filepath.Dir(doc), m[1]))
			}
			a, ok := headings(target)
			if !ok {
				continue // a missing file is TestDocumentedPathsExist's to report
			}
			if !a[m[2]] {
				missing = append(missing, doc+": "+target+"#"+m[2])
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d links name a heading that does not exist:\n\t%s", len(missing), strings.Join(missing, "\n\t"))
	}
}

func TestAnchors(t *testing.T) {
	a := anchors("# Lode architecture\n## Index advisor (internal/advise, internal/engine/whatif.go)\n" +
		"## $densify, $redact and $graphLookup\n## Notes\n## Notes\n```\n# not a heading\n```\n")
	for _, want := range []string{"lode-architecture", "index-advisor-internaladvise-internalenginewhatifgo",
		"densify-redact-and-graphlookup", "notes", "notes-1"} {
		if !a[want] {
			t.Errorf("anchor %s missing from %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("a line in a fenced block counted as a heading")
	}
}
