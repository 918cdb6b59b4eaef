//go:build !race

package testenv

// SlowFactor is how many times longer than usual a test's generous
// time bound may be (race.go): 1 outside race builds.
const SlowFactor = 1
