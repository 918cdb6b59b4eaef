package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// checkVerbosity rejects an unknown explain verbosity as mongod does.
func checkVerbosity(v string) error {
	switch v {
	case engine.VerbosityQueryPlanner, engine.VerbosityExecutionStats, engine.VerbosityAllPlansExecution:
		return nil
	}
	return errs.New(errs.FailedToParse, "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}")
}

// explainPipeline answers an aggregate with explain: true. Run by the
// explain command (req.explainVerbosity set), it returns the pipeline's
// explain for explainAggregate to complete; sent as is, it explains at the
// queryPlanner verbosity and returns the whole reply, as mongod does.
func explainPipeline(ctx context.Context, req *Request, p *agg.Pipeline, cat agg.Catalog, vars *expr.Vars) (bsoncore.Document, error) {
	v := req.explainVerbosity
	if v == "" {
		v = engine.VerbosityQueryPlanner
	}
	body, err := p.ExplainWith(ctx, cat, agg.ExplainOptions{Verbosity: v, Vars: vars})
	if err != nil {
		return nil, err
	}
	if req.explainVerbosity != "" {
		return body, nil
	}
	return aggExplainReply(body, echoedCommand(req.Cmd), req.DB), nil
}

// echoedCommand is a command as explain's command field shows it: without
// the session and cluster fields.
func echoedCommand(cmd bsoncore.Document) bsoncore.Document {
	cmd = redactCommand(cmd) // redact.go
	elems, err := cmd.Elements()
	if err != nil {
		return cmd
	}
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elems {
		switch e.Key() {
		case "lsid", "$clusterTime", "txnNumber", "autocommit", "startTransaction", "$readPreference":
			continue
		}
		b.AppendValue(e.Key(), e.Value())
	}
	return b.Build()
}

// aggExplainReply completes an aggregate's explain in mongod 7.0's order:
// {explainVersion, stages, serverInfo, serverParameters, command} for a
// pipeline with stages, and find's {explainVersion, queryPlanner,
// executionStats?, command, serverInfo, serverParameters} for one the
// query layer answers whole.
func aggExplainReply(body, cmd bsoncore.Document, db string) bsoncore.Document {
	if _, err := cmd.LookupErr("$db"); err != nil {
		cmd = explainAppendField(cmd, "$db", bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, db)})
	}
	b := bsoncore.NewDocumentBuilder().AppendString("explainVersion", "1")
	elems, _ := body.Elements()
	for _, e := range elems {
		b.AppendValue(e.Key(), e.Value())
	}
	if _, err := body.LookupErr("stages"); err == nil {
		b.AppendDocument("serverInfo", serverInfoDoc()).
			AppendDocument("serverParameters", serverParametersDoc()).
			AppendDocument("command", cmd)
	} else {
		b.AppendDocument("command", cmd).
			AppendDocument("serverInfo", serverInfoDoc()).
			AppendDocument("serverParameters", serverParametersDoc())
	}
	return b.Build()
}
