package agg

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// graphCache maps the keystring of a value $graphLookup searched for to
// the foreign documents whose connectToField holds it (possibly none).
// It lives for one execution of the stage and is bounded by what the
// stage's memory limit leaves once its search holds its visited
// documents and frontier; past that it is emptied (mongod evicts least
// recently used entries).
type graphCache struct {
	m     map[string][]bsoncore.Document
	bytes int64
}

func newGraphCache() *graphCache { return &graphCache{m: map[string][]bsoncore.Document{}} }

// put adds the results of one round's query, then empties the cache when
// it holds more than room bytes.
func (c *graphCache) put(results map[string][]bsoncore.Document, room int64) {
	for k, docs := range results {
		c.m[k] = docs
		c.bytes += int64(len(k)) + docOverhead
		for _, d := range docs {
			c.bytes += int64(len(d)) + 16
		}
	}
	if c.bytes > room {
		c.m = map[string][]bsoncore.Document{}
		c.bytes = 0
	}
}
