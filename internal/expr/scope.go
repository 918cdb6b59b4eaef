package expr

// PushScope opens a variable scope: names defined with DefineScoped until
// the matching PopScope are visible only to expressions parsed meanwhile.
// A stage that binds variables for its own expression only ($redact's
// $$DESCEND, $$PRUNE and $$KEEP) uses it.
func (pc *ParseContext) PushScope() { pc.push() }

// PopScope closes the scope PushScope opened.
func (pc *ParseContext) PopScope() { pc.pop() }

// DefineScoped declares name in the innermost scope and returns its slot;
// bind it with Vars.Set before Eval. Unlike Define it does not check the
// name, so a stage may define system-style names (upper-case first
// letter) that mongod scopes to it.
func (pc *ParseContext) DefineScoped(name string) int { return pc.defineScoped(name) }
