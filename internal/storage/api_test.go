package storage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

// pebbleAPIAllowed lists the exported names of storage whose signatures
// may name a Pebble type, and why.
var pebbleAPIAllowed = map[string]string{
	"NewFS": "wraps a Pebble filesystem: only failure tests (allowed to import Pebble) call it",
}

// TestNoPebbleInAPI fails when storage's exported API names a Pebble
// type: an exported function, method, variable, constant, struct field
// or interface method whose type mentions a Pebble package, or an
// exported type that is an alias of one. Batch, Snapshot, FS and Reader
// are storage's own types, so code outside storage cannot reach a Pebble
// method through them.
func TestNoPebbleInAPI(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			pebbleNames := map[string]bool{}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(p, "github.com/cockroachdb/pebble") {
					continue
				}
				local := p[strings.LastIndex(p, "/")+1:]
				if local == "v2" {
					local = "pebble"
				}
				if imp.Name != nil {
					local = imp.Name.Name
				}
				pebbleNames[local] = true
			}
			if len(pebbleNames) == 0 {
				continue
			}
			check := func(what string, n ast.Node) {
				if n == nil || pebbleAPIAllowed[what] != "" {
					return
				}
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && pebbleNames[id.Name] {
							t.Errorf("%s: exported %s names %s.%s: keep Pebble types inside storage", name, what, id.Name, sel.Sel.Name)
						}
					}
					return true
				})
			}
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					what := d.Name.Name
					if d.Recv != nil {
						recv := recvName(d.Recv.List[0].Type)
						if !ast.IsExported(recv) {
							continue
						}
						what = recv + "." + what
					}
					check(what, d.Type)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									check(n.Name, s.Type)
								}
							}
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							if s.Assign.IsValid() {
								check(s.Name.Name, s.Type)
								continue
							}
							checkTypeBody(s.Name.Name, s.Type, check)
						}
					}
				}
			}
		}
	}
}

// checkTypeBody checks the exported fields of a struct type and the
// exported methods of an interface type.
func checkTypeBody(typ string, e ast.Expr, check func(string, ast.Node)) {
	var fields *ast.FieldList
	switch e := e.(type) {
	case *ast.StructType:
		fields = e.Fields
	case *ast.InterfaceType:
		fields = e.Methods
	default:
		check(typ, e)
		return
	}
	for _, fl := range fields.List {
		for _, n := range fl.Names {
			if n.IsExported() {
				check(typ+"."+n.Name, fl.Type)
			}
		}
		if len(fl.Names) == 0 { // embedded
			check(typ, fl.Type)
		}
	}
}

func recvName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
