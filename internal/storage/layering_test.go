package storage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pebbleImportAllowed lists the files outside internal/storage that may
// import Pebble, and why. Add to it only with a reason: the rest of Lode
// reaches Pebble through storage (Reader, Iterator, Batch, Snapshot, FS,
// the record store), so that the storage layout can change in one place.
var pebbleImportAllowed = map[string]string{
	"failure_test.go": "injects I/O errors with Pebble's errorfs",
}

// TestStorageLayering fails when a file outside internal/storage imports
// Pebble or calls DB.Pebble() without being listed in
// pebbleImportAllowed, or when storage
// exports a helper that builds or decodes record, index, catalog or
// session keys again (the layouts stay inside storage: callers name
// records by RecordID and index entries by index id, keystring and
// RecordID).
func TestStorageLayering(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "internal/storage" || (rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		_, allowed := pebbleImportAllowed[rel]
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/cockroachdb/pebble") && !allowed {
				t.Errorf("%s imports %s: go through internal/storage (or add it to pebbleImportAllowed with a reason)", rel, p)
			}
		}
		// DB.Pebble() hands out the Pebble database itself.
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 0 {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Pebble" && !allowed {
					t.Errorf("%s: %s calls DB.Pebble(): go through internal/storage", rel, fset.Position(c.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	pkgs, err := parser.ParseDir(fset, ".", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Key builders and splitters of the record, index, catalog and
	// session stores: callers go through the stores' operations.
	forbidden := map[string]bool{
		"AppendRecordKey": true, "RecordRange": true, "RecordIDFromKey": true, "RecordKeyLen": true,
		"AppendIndexKey": true, "SplitIndexKey": true, "IndexPrefixLen": true, "AppendIndexPrefix": true, "IndexRange": true,
		"CollectionKey": true, "CollectionKeyRange": true,
		"SessionKey": true, "SessionStmtKey": true, "SessionStmtRange": true, "SessionsRange": true, "SessionRange": true, "IsSessionHeaderKey": true, "KindSession": true,
	}
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			for _, decl := range f.Decls {
				var names []string
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						names = append(names, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.ValueSpec:
							for _, n := range s.Names {
								names = append(names, n.Name)
							}
						case *ast.TypeSpec:
							names = append(names, s.Name.Name)
						}
					}
				}
				for _, n := range names {
					if forbidden[n] {
						t.Errorf("%s: storage exports %s, a key helper: keep the key layout inside storage's stores", name, n)
					}
				}
			}
		}
	}
}
