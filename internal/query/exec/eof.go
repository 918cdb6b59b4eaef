package exec

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// EOFStage is EOF: a plan that returns nothing (a missing collection or a
// filter that cannot match).
type EOFStage struct{ base }

// NewEOF returns an EOF stage.
func NewEOF() *EOFStage { return &EOFStage{} }

// Name implements Stage.
func (e *EOFStage) Name() string { return "EOF" }

// Work implements Stage.
func (e *EOFStage) Work() (State, *Member, error) {
	e.record(EOF, e.now())
	return EOF, nil, nil
}

// Close implements Stage.
func (e *EOFStage) Close() {}

func (e *EOFStage) explain(*bsoncore.DocumentBuilder, bool) {}
