// Command skipsummary prints the tests the test command skipped, by
// group, with how to enable them (testenv.SkipSummary): scripts/test.sh
// runs it on the directory it gave the tests as LODE_SKIP_DIR.
package main

import (
	"fmt"
	"os"

	"github.com/lodedb/lode/test/testenv"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: skipsummary DIR")
		os.Exit(2)
	}
	s, err := testenv.SkipSummary(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "skipsummary:", err)
		os.Exit(1)
	}
	if s == "" {
		s = "skipped: no test (every client, tool and setting the tests look for was present)\n"
	}
	fmt.Print(s)
}
