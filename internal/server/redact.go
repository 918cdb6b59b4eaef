package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// redactedText is what a sensitive field's value becomes, as in mongod.
const redactedText = "xxx"

// redactCommand returns cmd with the value of every top-level field its
// command (named by cmd's first field) declares sensitive (mongod's
// Command::sensitiveFieldNames, the descriptor's sensitive field) replaced by
// the string "xxx", every occurrence as mongod's snipForLogging does. It
// returns cmd itself when there is nothing to redact, so every place
// that echoes a command can call it.
func redactCommand(cmd bsoncore.Document) bsoncore.Document {
	first, err := cmd.IndexErr(0)
	if err != nil {
		return cmd
	}
	return redactCommandFor(cmd, lookupCommand(first.Key()))
}

// redactCommandFor is redactCommand for a command whose descriptor is
// known.
func redactCommandFor(cmd bsoncore.Document, c *command) bsoncore.Document {
	fields := c.sensitive
	if len(fields) == 0 {
		return cmd
	}
	els, err := cmd.Elements()
	if err != nil {
		return cmd
	}
	hit := false
	for _, el := range els {
		if isSensitive(el.Key(), fields) {
			hit = true
			break
		}
	}
	if !hit {
		return cmd
	}
	b := bsoncore.NewDocumentBuilder()
	for _, el := range els {
		if isSensitive(el.Key(), fields) {
			b.AppendString(el.Key(), redactedText)
			continue
		}
		b.AppendValue(el.Key(), el.Value())
	}
	return b.Build()
}

func isSensitive(key string, fields []string) bool {
	for _, f := range fields {
		if key == f {
			return true
		}
	}
	return false
}
