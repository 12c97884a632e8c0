package clusterview

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
)

const modulePath = "github.com/cloudstack-cks/terraform-provider-cks/internal/"

// engines are the packages that read clusters through this one: neither
// converts a CloudStack record itself, so that both read a cluster the same
// way and the next fact about CloudStack is taught to one reading.
var engines = []string{modulePath + "clusterops", modulePath + "driftcheck"}

// recordFields are the CloudStack records whose meaning this package reads,
// with the fields an engine may still use: a record's identity (ID, Name)
// and, for rules, where it was listed (IPAddressID, NetworkID, PublicIPID),
// by which the fleet's one listing of every rule is grouped per cluster.
// Every other field is read here.
var recordFields = map[string][]string{
	"FirewallRule":       {"ID", "IPAddressID", "NetworkID"},
	"PortForwardingRule": {"ID", "IPAddressID", "NetworkID"},
	"LoadBalancerRule":   {"ID", "PublicIPID", "NetworkID"},
	"NetworkACLItem":     {"ID"},
	"NetworkACLList":     {"ID", "Name"},
	"Network":            {"ID", "Name"},
	"PublicIPAddress":    {"ID"},
	"ClusterVM":          {"ID", "Name"},
}

// TestEnginesReadNoRecordThemselves fails when a production file of an
// engine reads a field of a CloudStack record beyond its identity: the
// rules, the network kind and tier, the VM map's roles and a VM's
// properties, an ACL list and its items reach the engines as this
// package's readings (FirewallRules, ReadRules, NetworkKind, TierOf,
// MapVMs, ReadTierACL, ...).
func TestEnginesReadNoRecordThemselves(t *testing.T) {
	t.Parallel()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
		packages.NeedTypesInfo, Dir: "."}
	pkgs, err := packages.Load(cfg, engines...)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != len(engines) {
		t.Fatalf("loaded %d packages, want the %d engines", len(pkgs), len(engines))
	}
	identityReads := 0
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			t.Fatalf("loading %s: %v", pkg.PkgPath, pkg.Errors)
		}
		for _, file := range pkg.Syntax {
			ast.Inspect(file, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				record, field, ok := recordField(pkg.TypesInfo, sel)
				switch {
				case !ok:
				case allowedField(record, field):
					identityReads++
				default:
					pos := pkg.Fset.Position(sel.Pos())
					t.Errorf("%s:%d: %s reads cloudstack.%s.%s itself; read the record in internal/clusterview and use "+
						"what it means", filepath.Base(pos.Filename), pos.Line, pkg.Name, record, field)
				}
				return true
			})
		}
	}
	if identityReads == 0 {
		t.Fatal("no read of a record's identity found: the check inspected nothing")
	}
}

// recordField tells whether sel reads a field of one of the records, and
// which.
func recordField(info *types.Info, sel *ast.SelectorExpr) (record, field string, ok bool) {
	s, found := info.Selections[sel]
	if !found || s.Kind() != types.FieldVal {
		return "", "", false
	}
	t := s.Recv()
	if p, isPtr := t.(*types.Pointer); isPtr {
		t = p.Elem()
	}
	named, isNamed := t.(*types.Named)
	if !isNamed || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != modulePath+"cloudstack" {
		return "", "", false
	}
	if _, guarded := recordFields[named.Obj().Name()]; !guarded {
		return "", "", false
	}
	return named.Obj().Name(), sel.Sel.Name, true
}

func allowedField(record, field string) bool { return slices.Contains(recordFields[record], field) }
