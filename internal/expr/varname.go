package expr

import "github.com/lodedb/lode/internal/errs"

// ValidateUserVarName checks a user variable name as mongod's
// variableValidation does. A name that is written (a command's let, $let)
// must start with a lowercase ASCII letter or a non-ASCII byte; a name
// that is only read (an update's constants) may also start with an
// uppercase letter. The other characters are letters, digits, '_' or
// non-ASCII bytes.
func ValidateUserVarName(name string, write bool) error {
	if name == "" {
		return errs.New(errs.Location16866, "empty variable names are not allowed")
	}
	c := name[0]
	first := (c >= 'a' && c <= 'z') || c&0x80 != 0 || (!write && c >= 'A' && c <= 'Z')
	if !first {
		return errs.New(errs.Location16867, "'%s' starts with an invalid character for a user variable name", name)
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c&0x80 != 0) {
			return errs.New(errs.Location16868, "'%s' contains an invalid character for a variable name: '%c'", name, c)
		}
	}
	return nil
}
