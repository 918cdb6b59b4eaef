package security

import (
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// batchRun is what one script of a mongoshBatch printed, and whether it
// ran to its end without an uncaught error.
type batchRun struct {
	out    string
	passed bool
}

// mongoshBatch runs the scripts one after another in a single mongosh
// process (testenv.MongoshBatchEval), each with db connected to its URI
// as `mongosh URI script` would; a script's uncaught error ends that
// script only, and its message is in the script's output.
func mongoshBatch(t *testing.T, scripts []testenv.BatchScript) []batchRun {
	t.Helper()
	out, err := runMongosh(t, "--nodb", "--eval", testenv.MongoshBatchEval(t, scripts))
	if err != nil {
		t.Errorf("mongosh: %v\n%s", err, out)
	}
	runs := make([]batchRun, len(scripts))
	for i, s := range scripts {
		part, ran, passed := testenv.BatchPart(out, s.Name)
		if !ran {
			part = "(did not run) mongosh output:\n" + out
		}
		runs[i] = batchRun{out: part, passed: passed}
	}
	return runs
}
