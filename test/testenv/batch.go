package testenv

import (
	"encoding/json"
	"strings"
	"testing"
)

// Client script batches: several scripts run one after another in one
// mongosh (or Python) process, since a start costs about a second of
// CPU, more than most scripts. Each script's part of the output sits
// between markers the runner prints.

// Markers a batch runner prints around each script.
const (
	BatchBegin  = "<<<lode-case-begin "
	BatchPassed = "<<<lode-case-passed>>>"
	BatchFailed = "<<<lode-case-failed>>> "
)

// BatchScript is one script of a batch: the name its output is marked
// with, the URI it runs against and its file.
type BatchScript struct{ Name, URI, File string }

// MongoshBatchEval returns mongosh's --eval (for a --nodb start) that
// runs each script with db connected to its URI, as `mongosh URI file`
// would, load()ing the file so that its top-level declarations stay its
// own: an uncaught error ends that script only, and is printed in its
// part of the output.
func MongoshBatchEval(t testing.TB, scripts []BatchScript) string {
	t.Helper()
	return `for (const c of ` + BatchJSON(t, scripts) + `) {
  print("\n` + BatchBegin + `" + c.Name + ">>>");
  try {
    db = connect(c.URI);
    if (!load(c.File)) throw new Error("load(" + c.File + ") returned false");
    print("\n` + BatchPassed + `");
  } catch (e) {
    print("\n` + BatchFailed + `" + ((e && e.stack) || e));
  }
}`
}

// BatchJSON is the scripts as a JSON list of {Name, URI, File}, for a
// runner written in another language.
func BatchJSON(t testing.TB, scripts []BatchScript) string {
	t.Helper()
	list, err := json.Marshal(scripts)
	if err != nil {
		t.Fatal(err)
	}
	return string(list)
}

// BatchPart returns what the script name printed in a batch's output
// out, whether it ran, and whether it ran to its end.
func BatchPart(out, name string) (part string, ran, passed bool) {
	marker := BatchBegin + name + ">>>"
	begin := strings.Index(out, marker)
	if begin < 0 {
		return "", false, false
	}
	part = out[begin+len(marker):]
	if end := strings.Index(part, BatchBegin); end >= 0 {
		part = part[:end]
	}
	return part, true, strings.Contains(part, BatchPassed)
}
