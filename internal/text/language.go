package text

import (
	"bufio"
	"embed"
	"strings"
	"sync"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
)

//go:embed stopwords/*.txt
var stopwordFiles embed.FS

// Language is one of the languages a text index or $text query names.
type Language struct {
	// Name is the canonical (long) name, such as "english".
	Name string
	stem func(*snowballstem.Env) bool
	stop map[string]bool
	once sync.Once
}

// languages maps every accepted name (long names and ISO 639-1 codes, as
// mongod 7.0 lists them for textIndexVersion 3) to its Language.
var languages = map[string]*Language{}

func init() {
	add := func(stem func(*snowballstem.Env) bool, names ...string) {
		l := &Language{Name: names[0], stem: stem}
		for _, n := range names {
			languages[n] = l
		}
	}
	add(danish.Stem, "danish", "da")
	add(dutch.Stem, "dutch", "nl")
	add(english.Stem, "english", "en")
	add(finnish.Stem, "finnish", "fi")
	add(french.Stem, "french", "fr")
	add(german.Stem, "german", "de")
	add(hungarian.Stem, "hungarian", "hu")
	add(italian.Stem, "italian", "it")
	add(norwegian.Stem, "norwegian", "nb")
	add(portuguese.Stem, "portuguese", "pt")
	add(romanian.Stem, "romanian", "ro")
	add(russian.Stem, "russian", "ru")
	add(spanish.Stem, "spanish", "es")
	add(swedish.Stem, "swedish", "sv")
	add(turkish.Stem, "turkish", "tr")
	add(nil, "none")
}

// LookupLanguage returns the language called name (case-insensitive, as
// mongod lower-cases it), or false when textIndexVersion 3 does not know it.
func LookupLanguage(name string) (*Language, bool) {
	l, ok := languages[strings.ToLower(name)]
	return l, ok
}

// stopWords returns the language's stop words, loaded on first use. A
// language without a list here has none.
func (l *Language) stopWords() map[string]bool {
	l.once.Do(func() {
		l.stop = map[string]bool{}
		f, err := stopwordFiles.Open("stopwords/" + l.Name + ".txt")
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if w := strings.TrimSpace(sc.Text()); w != "" {
				l.stop[w] = true
			}
		}
	})
	return l.stop
}

// IsStopWord reports whether the lower-cased word w is a stop word.
func (l *Language) IsStopWord(w string) bool { return l.stopWords()[w] }

// Stem returns the Snowball stem of the lower-cased word w ("none" and
// languages without a stemmer return w).
func (l *Language) Stem(w string) string {
	if l.stem == nil {
		return w
	}
	env := snowballstem.NewEnv(w)
	l.stem(env)
	return env.Current()
}
