package engine

import "github.com/lodedb/lode/internal/query/plan"

// renderResidual fills the explain form of a FETCH's residual filter: the
// filter without the conjuncts the index bounds guarantee, serialized as
// mongod prints it.
func renderResidual(n *plan.Node) {
	if n.Stage == plan.StageFetch && len(n.Dropped) > 0 && n.Residual != nil {
		n.ResidualDoc = n.Residual.Serialize()
	}
}
