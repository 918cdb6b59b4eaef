package testenv

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// MainWaiting runs a package's tests with up to n parallel tests at once
// unless -test.parallel was given. It is for packages whose tests mostly
// wait (leases that expire, schedules of fixed length) rather than
// compute: the default, GOMAXPROCS (2 here), would run them two at a
// time on idle cores. Call it from TestMain.
func MainWaiting(m *testing.M, n int) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			set = true
		}
	})
	if !set {
		if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
