package security

import (
	"strings"
	"testing"
)

// batchScript is one script of a mongoshBatch: a name for its output,
// the URI db is connected to and the script file.
type batchScript struct{ name, uri, file string }

// batchRun is what one script of a mongoshBatch printed, and whether it
// ran to its end without an uncaught error.
type batchRun struct {
	out    string
	passed bool
}

// Markers mongoshBatch prints around each script.
const (
	batchBegin  = "<<<lode-script-begin "
	batchPassed = "<<<lode-script-passed>>>"
	batchFailed = "<<<lode-script-failed>>> "
)

// mongoshBatch runs the scripts one after another in a single mongosh
// process (a start costs about a second of CPU), each with db connected
// to its URI as `mongosh URI script` would; a script's uncaught error
// ends that script only, and its message is in the script's output.
func mongoshBatch(t *testing.T, scripts []batchScript) []batchRun {
	t.Helper()
	type entry struct{ Name, URI, File string }
	list := make([]entry, len(scripts))
	for i, s := range scripts {
		list[i] = entry{s.name, s.uri, s.file}
	}
	eval := `for (const c of ` + jsValue(t, list) + `) {
  print("\n` + batchBegin + `" + c.Name + ">>>");
  try {
    db = connect(c.URI);
    if (!load(c.File)) throw new Error("load(" + c.File + ") returned false");
    print("\n` + batchPassed + `");
  } catch (e) {
    print("\n` + batchFailed + `" + ((e && e.stack) || e));
  }
}`
	out, err := runMongosh(t, "--nodb", "--eval", eval)
	if err != nil {
		t.Errorf("mongosh: %v\n%s", err, out)
	}
	runs := make([]batchRun, len(scripts))
	for i, s := range scripts {
		begin := strings.Index(out, batchBegin+s.name+">>>")
		if begin < 0 {
			runs[i].out = "(did not run) mongosh output:\n" + out
			continue
		}
		part := out[begin+len(batchBegin+s.name+">>>"):]
		if end := strings.Index(part, batchBegin); end >= 0 {
			part = part[:end]
		}
		runs[i] = batchRun{out: part, passed: strings.Contains(part, batchPassed)}
	}
	return runs
}
