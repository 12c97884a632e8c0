package provider

import (
	"go/ast"
	"os"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// The passes of this package's tests (GNUmakefile). `make test` runs every
// test once, with the oldest Terraform the README promises. A test runs
// again only where the second run checks something the first could not:
//
//   - readsListsInAnyOrder marks a witness of the one list order: the
//     client hands on every list sorted by id whatever order CloudStack
//     listed it in (TestEveryListHasOneOrder proves it for each List
//     method), so no outcome can hang on the server's order. `make
//     test-list-orders` runs the marked tests again with every list the
//     simulator returns reversed, then shuffled, beside the whole of the
//     engines' packages and the client's: one test for each kind of list the
//     provider reads (an IP's rules, the etcd verdict that reads the
//     server's listing, a cluster's VMs, ACL items, look-ups, a fleet, the
//     shared reads, query), to show the sort end to end.
//   - dependsOnTheCLI marks a test of what the CLI does with the provider's
//     answers: the examples, guides and README as users run them, import,
//     moved blocks, replacements and taint, destroy plans, plan rendering,
//     ephemeral resources, identities and terraform query. `make
//     test-opentofu` and `make test-terraform-latest` run the marked tests
//     with those CLIs; the others test the provider against CloudStack,
//     which the CLI does not change.
//
// A marker stands among the first statements of a Test function: the GNUmakefile
// selects the marked tests by that line, and TestPassMarks keeps it so.

// readsListsInAnyOrder marks a test that runs again under every list order.
func readsListsInAnyOrder(t *testing.T) {
	t.Helper()
	if order := os.Getenv(simulator.ListOrderEnv); order != "" {
		t.Logf("the simulator returns every list %s", order)
	}
}

// dependsOnTheCLI marks a test that runs again with every CLI.
func dependsOnTheCLI(t *testing.T) {
	t.Helper()
	t.Logf("CLI: %s", terraformPath())
}

// passMarkers are the markers, each a function of this file.
var passMarkers = []string{"readsListsInAnyOrder", "dependsOnTheCLI"}

// Each marker is called only among the first statements of a Test function,
// alone on its line as the GNUmakefile's selection reads it, and marks
// enough tests that a broken selection shows.
func TestPassMarks(t *testing.T) {
	t.Parallel()
	marked := map[string]int{}
	fset, funcs := testFileFuncs(t)
	for _, fn := range funcs {
		leading := true
		for _, stmt := range fn.Body.List {
			marker := markerCalled(stmt)
			switch {
			case marker == "":
				leading = false
			case !leading || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test"):
				t.Errorf("%s: %s marks %s but is not among its first statements: the GNUmakefile would not select it",
					fset.Position(stmt.Pos()), marker, fn.Name.Name)
			default:
				marked[marker]++
			}
		}
	}
	for _, marker := range passMarkers {
		if marked[marker] < 8 {
			t.Errorf("%s marks %d tests; the passes that select them would check next to nothing", marker, marked[marker])
		}
	}
}

// markerCalled is the marker stmt calls with t, or "".
func markerCalled(stmt ast.Stmt) string {
	expr, ok := stmt.(*ast.ExprStmt)
	if !ok {
		return ""
	}
	call, ok := expr.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	fun, ok := call.Fun.(*ast.Ident)
	arg, argOK := call.Args[0].(*ast.Ident)
	if !ok || !argOK || arg.Name != "t" {
		return ""
	}
	for _, marker := range passMarkers {
		if fun.Name == marker {
			return marker
		}
	}
	return ""
}
