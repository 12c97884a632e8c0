package provider

import (
	"go/ast"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// loadProviderPackage loads the production files of this package with
// their types.
func loadProviderPackage(t *testing.T) *packages.Package {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
		packages.NeedTypesInfo, Dir: "."}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading the provider package: %v", pkgs)
	}
	return pkgs[0]
}

// TestProviderFilesFormLayers keeps the files of the package in layers, so
// that a reader can start at any file and find everything it uses below
// it: no file uses a declaration of a file that, directly or through
// others, uses one of its own. A mention in a comment does not count.
func TestProviderFilesFormLayers(t *testing.T) {
	t.Parallel()
	uses := fileUses(loadProviderPackage(t))
	if len(uses) < 10 {
		t.Fatalf("only %d files use another one: the check inspected too little", len(uses))
	}
	for _, from := range slices.Sorted(maps.Keys(uses)) {
		for _, to := range slices.Sorted(maps.Keys(uses[from])) {
			if back := usePath(uses, to, from); back != nil {
				t.Errorf("%s uses %s of %s, which leads back to it (%s): move a declaration so the files form layers",
					from, strings.Join(uses[from][to], ", "), to, strings.Join(back, " → "))
			}
		}
	}
}

// fileUses maps each file to the files whose top-level declarations (and
// methods) it uses, with the names used.
func fileUses(pkg *packages.Package) map[string]map[string][]string {
	declaredIn := map[types.Object]string{}
	fileOf := func(o types.Object) string { return filepath.Base(pkg.Fset.Position(o.Pos()).Filename) }
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		o := scope.Lookup(name)
		declaredIn[o] = fileOf(o)
		if named, ok := o.Type().(*types.Named); ok && o == named.Obj() {
			for m := range named.Methods() {
				declaredIn[m] = fileOf(m)
			}
		}
	}
	uses := map[string]map[string][]string{}
	for _, file := range pkg.Syntax {
		from := filepath.Base(pkg.Fset.Position(file.Pos()).Filename)
		ast.Inspect(file, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			o := pkg.TypesInfo.Uses[id]
			if fn, ok := o.(*types.Func); ok {
				o = fn.Origin()
			}
			to, ok := declaredIn[o]
			if !ok || to == from {
				return true
			}
			if uses[from] == nil {
				uses[from] = map[string][]string{}
			}
			if !slices.Contains(uses[from][to], o.Name()) {
				uses[from][to] = append(uses[from][to], o.Name())
			}
			return true
		})
	}
	return uses
}

// usePath is a chain of files from start to goal, each using the next, or
// nil when goal cannot be reached.
func usePath(uses map[string]map[string][]string, start, goal string) []string {
	seen := map[string]bool{}
	var walk func(file string) []string
	walk = func(file string) []string {
		if file == goal {
			return []string{file}
		}
		if seen[file] {
			return nil
		}
		seen[file] = true
		for _, next := range slices.Sorted(maps.Keys(uses[file])) {
			if rest := walk(next); rest != nil {
				return append([]string{file}, rest...)
			}
		}
		return nil
	}
	return walk(start)
}
