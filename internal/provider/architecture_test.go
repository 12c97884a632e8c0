package provider

import (
	"go/ast"
	"go/types"
	"testing"
)

const cloudstackPkg = "github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"

// engineAPIPkgs hold the engines, whose API interfaces are their views of
// CloudStack: the glue may call the engines, not those views.
var engineAPIPkgs = map[string]bool{
	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops": true,
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops": true,
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck": true,
}

// TestProviderMakesNoDirectCloudStackCalls keeps the Terraform glue thin:
// every CloudStack call goes through the domain engines (clusterops,
// driftcheck), which the provider configures once. Outside test files, no
// method of the CloudStack client may be called, and only newProviderData
// may build one.
func TestProviderMakesNoDirectCloudStackCalls(t *testing.T) {
	t.Parallel()
	pkg := loadProviderPackage(t)
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
	if !ok || fn.Pkg() == nil {
		return ""
	}
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return ""
	}
	direct := "calls CloudStack directly (" + fn.FullName() + "); go through clusterops or driftcheck"
	switch path := fn.Pkg().Path(); {
	case engineAPIPkgs[path]:
		if recv := sig.Recv(); recv != nil && interfaceNamed(recv.Type(), "API") {
			return direct
		}
	case path == cloudstackPkg:
		if recv := sig.Recv(); recv != nil {
			if clientType(recv.Type()) {
				return direct
			}
			return ""
		}
		if fn.Name() == "New" && enclosing != "newProviderData" {
			return "builds a CloudStack client outside newProviderData"
		}
		for i := range sig.Params().Len() {
			if t := sig.Params().At(i).Type(); clientType(t) && declaredIn(t, cloudstackPkg) {
				return direct // a helper that calls through the client, such as WaitForJob
			}
		}
	}
	return ""
}

// declaredIn tells whether t (or what it points to) is declared in pkg.
func declaredIn(t types.Type, pkg string) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == pkg
}

// interfaceNamed tells whether t is the interface type called name.
func interfaceNamed(t types.Type, name string) bool {
	named, ok := t.(*types.Named)
	if !ok {
		return false
	}
	_, isInterface := named.Underlying().(*types.Interface)
	return isInterface && named.Obj().Name() == name
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
