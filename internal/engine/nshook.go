package engine

import "sync/atomic"

// NamespaceEvent reports a collection that is gone from its namespace: it
// was dropped (RenamedTo empty) or renamed to RenamedTo ("db.coll").
type NamespaceEvent struct {
	DB, Coll  string
	UUID      [16]byte
	RenamedTo string
}

// namespaceHook holds the function SetNamespaceHook installed.
type namespaceHook struct {
	fn atomic.Pointer[func(NamespaceEvent)]
}

// SetNamespaceHook installs fn, called after every collection drop
// (dropDatabase, a rename's dropTarget and the abort of a transaction's
// new collection included) and rename, with the collection's lock held:
// fn must be quick and must not call the engine. The server kills the
// cursors of the namespace, as mongod does.
func (e *Engine) SetNamespaceHook(fn func(NamespaceEvent)) { e.nsHook.fn.Store(&fn) }

func (e *Engine) namespaceGone(c *collection, renamedTo string) {
	if fn := e.nsHook.fn.Load(); fn != nil {
		(*fn)(NamespaceEvent{DB: c.DB, Coll: c.Name, UUID: c.UUID, RenamedTo: renamedTo})
	}
}
