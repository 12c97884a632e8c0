package provider

import (
	"go/ast"
	"go/types"
	"testing"

	"golang.org/x/tools/go/packages"
)

const cloudstackPkg = "github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"

// TestProviderMakesNoDirectCloudStackCalls keeps the Terraform glue thin:
// every CloudStack call goes through the domain engines (clusterops,
// driftcheck), which the provider configures once. Outside test files, no
// method of the CloudStack client may be called, and only newProviderData
// may build one.
func TestProviderMakesNoDirectCloudStackCalls(t *testing.T) {
	t.Parallel()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
		packages.NeedTypesInfo, Dir: "."}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading the provider package: %v", pkgs)
	}
	pkg := pkgs[0]
	calls := 0
	for _, file := range pkg.Syntax {
		var enclosing string
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				enclosing = n.Name.Name
			case *ast.CallExpr:
				calls++
				if msg := directCall(pkg.TypesInfo, n, enclosing); msg != "" {
					t.Errorf("%s: %s", pkg.Fset.Position(n.Pos()), msg)
				}
			}
			return true
		})
	}
	if calls == 0 {
		t.Fatal("no call found: the check inspected nothing")
	}
}

// directCall says what is wrong with a call, or "".
func directCall(info *types.Info, call *ast.CallExpr, enclosing string) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != cloudstackPkg {
		return ""
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return ""
	}
	if recv := sig.Recv(); recv != nil {
		if clientType(recv.Type()) {
			return "calls CloudStack directly (" + fn.FullName() + "); go through clusterops or driftcheck"
		}
		return ""
	}
	if fn.Name() == "New" && enclosing != "newProviderData" {
		return "builds a CloudStack client outside newProviderData"
	}
	return ""
}

// clientType tells whether t is the CloudStack client or one of its
// interfaces.
func clientType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok {
		return false
	}
	_, isInterface := named.Underlying().(*types.Interface)
	return isInterface || named.Obj().Name() == "Client"
}
