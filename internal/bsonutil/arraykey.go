package bsonutil

import "strconv"

// arrayKeys holds the BSON array keys "0".."999".
var arrayKeys = func() []string {
	out := make([]string, 1000)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}()

// ArrayKey returns the key of element i of a BSON array ("0", "1", ...),
// without allocating below 1,000.
func ArrayKey(i int) string {
	if i >= 0 && i < len(arrayKeys) {
		return arrayKeys[i]
	}
	return strconv.Itoa(i)
}
