//go:build race

package testenv

// SlowFactor is how many times longer than usual a test's generous
// time bound may be: the race detector makes the engine 5 to 20 times
// slower.
const SlowFactor = 20
