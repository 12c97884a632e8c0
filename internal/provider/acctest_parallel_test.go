package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestAcceptanceTestsRunInParallel keeps every test of this package that
// starts a simulator or runs the CLI parallel, unless it sets the process's
// environment (t.Setenv, which Go refuses in a parallel test). Go runs a
// package's parallel tests only once all the others have run one at a time,
// and twelve acceptance tests without t.Parallel once held the whole package
// up for its first 35 s while the second core stayed idle.
func TestAcceptanceTestsRunInParallel(t *testing.T) {
	t.Parallel()
	fset, funcs := testFileFuncs(t)
	calls := map[string]map[string]bool{} // function or method name -> names it calls
	var tests []*ast.FuncDecl
	for _, fn := range funcs {
		if calls[fn.Name.Name] == nil {
			calls[fn.Name.Name] = map[string]bool{}
		}
		for callee := range calledNames(fn.Body) {
			calls[fn.Name.Name][callee] = true
		}
		if fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
			tests = append(tests, fn)
		}
	}
	reaches := func(from map[string]bool, targets ...string) bool {
		seen := map[string]bool{}
		queue := make([]string, 0, len(from))
		for name := range from {
			queue = append(queue, name)
		}
		for len(queue) > 0 {
			name := queue[0]
			queue = queue[1:]
			if seen[name] {
				continue
			}
			seen[name] = true
			for _, target := range targets {
				if name == target {
					return true
				}
			}
			for callee := range calls[name] {
				queue = append(queue, callee)
			}
		}
		return false
	}

	var alone []string
	for _, fn := range tests {
		body := calledNames(fn.Body)
		if !reaches(body, "accTest", "UnitTest", "ParallelTest", "newSimEnv") || reaches(body, "Setenv") {
			continue
		}
		// The parent must call t.Parallel itself: a subtest's call does not
		// let the test that runs it go beside the others.
		if !reaches(topLevelCalledNames(fn.Body), "Parallel") {
			alone = append(alone, fset.Position(fn.Pos()).String()+" "+fn.Name.Name)
		}
	}
	sort.Strings(alone)
	for _, test := range alone {
		t.Errorf("%s starts a simulator or the CLI but does not call t.Parallel(), so every parallel test waits for it", test)
	}
}

// calledNames are the names of the functions and methods a body calls,
// closures included.
func calledNames(body ast.Node) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if name := calleeName(call); name != "" {
				names[name] = true
			}
		}
		return true
	})
	return names
}

// topLevelCalledNames are the names a body's own statements call, not
// those of the closures it passes on (t.Run's subtests, step checks).
func topLevelCalledNames(body *ast.BlockStmt) map[string]bool {
	names := map[string]bool{}
	for _, stmt := range body.List {
		ast.Inspect(stmt, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok {
				if name := calleeName(call); name != "" {
					names[name] = true
				}
			}
			return true
		})
	}
	return names
}

// testFileFuncs are the functions and methods, with bodies, of this
// package's test files.
func testFileFuncs(t *testing.T) (*token.FileSet, []*ast.FuncDecl) {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var funcs []*ast.FuncDecl
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				funcs = append(funcs, fn)
			}
		}
	}
	return fset, funcs
}

func calleeName(call *ast.CallExpr) string {
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		return fun.Name
	case *ast.SelectorExpr:
		return fun.Sel.Name
	}
	return ""
}
