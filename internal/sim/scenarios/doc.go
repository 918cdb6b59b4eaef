// Package scenarios holds `lode sim`'s built-in scenarios, one per seed
// pattern. Each uses the matching package under patterns/ for its
// measured operation. Importing the package registers them with sim.
package scenarios
