package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHarnessIsInOnePlace keeps the acceptance harness in its files
// (acctest_*_test.go), so that no test grows a second one beside it: the
// simulator environment's methods, the fault proxy (the only reverse proxy
// to the simulator), the cluster configuration (the only cks_cluster
// written out) and the error matcher (the only function that makes a
// pattern of an error).
func TestHarnessIsInOnePlace(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) < 20 {
		t.Fatalf("test files: %v, %v", files, err)
	}
	clusterBlock := regexp.MustCompile(`resource\s+"cks_cluster"\s+"[^"]+"\s*\{`)
	fset := token.NewFileSet()
	methods := 0
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		harness := strings.HasPrefix(name, "acctest_")
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "net/http/httputil" && name != "acctest_fault_proxy_test.go" {
				t.Errorf("%s proxies HTTP: break calls with the fault proxy (acctest_fault_proxy_test.go)", name)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if receiverIs(fn, "simEnv") {
				methods++
				if !harness {
					t.Errorf("%s declares simEnv.%s: the simulator environment's methods live in acctest_sim_test.go and "+
						"acctest_expect_test.go; a helper of one test takes the environment as an argument", name, fn.Name.Name)
				}
			}
			if returnsRegexp(fn) && fn.Name.Name != "errorFragments" && fn.Name.Name != "regexpMust" {
				t.Errorf("%s declares %s, another matcher of errors: use errorFragments", name, fn.Name.Name)
			}
		}
		if name != "acctest_config_test.go" && name != "acctest_harness_test.go" && clusterBlock.Match(src) {
			t.Errorf("%s writes a cks_cluster out: build it with the cluster configuration (acctest_config_test.go)", name)
		}
	}
	if methods < 20 {
		t.Fatalf("only %d simEnv methods found: the check inspected too little", methods)
	}
}

// receiverIs tells whether fn is a method of *typeName or typeName.
func receiverIs(fn *ast.FuncDecl, typeName string) bool {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return false
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.Name == typeName
}

// returnsRegexp tells whether fn returns a *regexp.Regexp.
func returnsRegexp(fn *ast.FuncDecl) bool {
	if fn.Type.Results == nil {
		return false
	}
	for _, r := range fn.Type.Results.List {
		star, ok := r.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Regexp" {
			return true
		}
	}
	return false
}
