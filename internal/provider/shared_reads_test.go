package provider

import (
	"context"
	"fmt"
	"go/ast"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

func init() {
	// Every acceptance test refreshes through shared lists from its first
	// read, not only workspaces of many clusters: each one then also checks
	// that no plan or apply acts on a stale read.
	sharedReadsFrom = 1
}

// TestOnlyRefreshesReadShared keeps the shared reads out of every change:
// readShared, which lets a context be served lists up to a second old, is
// called only by Read and ModifyPlan methods, and nothing else in the
// package uses sharedreads.Shared. Create, Update and Delete,
// and everything they call, read fresh.
func TestOnlyRefreshesReadShared(t *testing.T) {
	t.Parallel()
	pkg := loadProviderPackage(t)
	var callers []string
	for _, file := range pkg.Syntax {
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "readShared" {
						callers = append(callers, fn.Name.Name)
					}
				case *ast.SelectorExpr:
					// The marking itself, called or passed on, is readShared's alone.
					if pkg, ok := n.X.(*ast.Ident); ok && pkg.Name == "sharedreads" && n.Sel.Name == "Shared" &&
						fn.Name.Name != "readShared" {
						t.Errorf("%s uses sharedreads.Shared: mark a refresh's context with readShared", fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	if len(callers) < 3 {
		t.Fatalf("readShared is called by %v: the check found too little", callers)
	}
	for _, name := range callers {
		if !slices.Contains([]string{"Read", "ModifyPlan"}, name) {
			t.Errorf("%s calls readShared: only a refresh or a plan may read shared lists", name)
		}
	}
}

// sharedPair is two clusters of one account, whose refreshes share their
// lists.
func sharedPair(e *simEnv) string {
	b := e.cluster("shared-b").named("b").keypair().through("")
	return e.cluster("shared-a").named("a").keypair().with(b.String()).String()
}

// planCheckFunc runs fn between the plan and the apply of a step.
type planCheckFunc func() error

func (f planCheckFunc) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f()
}

// TestAccCluster_sharedReadsNeverStale: two clusters refreshed together in
// one plan. Another client deletes cluster a's control node forward just
// before the plan: the plan sees it (an update of a, nothing for b). Then,
// inside the apply, right after the apply's first read of the forwards
// (its plan of a again, which reads shared lists), it deletes a's worker
// forward too: the update reads fresh and re-creates both, although the
// lists read a moment before still show the worker's; and the refresh
// after it finds everything in place (the framework's empty plan after
// each step).
func TestAccCluster_sharedReadsNeverStale(t *testing.T) {
	readsListsInAnyOrder(t)
	t.Parallel()
	env := newSimEnv(t, simtest.WithOrderedList())
	ids := map[string]string{}
	cluster := func(name string) *cloudstack.Cluster { return env.Cluster(ids[name]) }
	deleted := make(chan error, 1)
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: sharedPair(env),
				Check: func(s *terraform.State) error {
					for _, name := range []string{"a", "b"} {
						rs, ok := s.RootModule().Resources["cks_cluster."+name]
						if !ok {
							return fmt.Errorf("cks_cluster.%s is not in state", name)
						}
						ids[name] = rs.Primary.ID
					}
					return nil
				},
			},
			{
				PreConfig: func() { env.DeleteForward(cluster("a"), 2222) },
				Config:    sharedPair(env),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("cks_cluster.a", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("cks_cluster.b", plancheck.ResourceActionNoop),
					planCheckFunc(func() error {
						worker := forwardOn(env.Forwards(cluster("a")), 2223)
						if worker == "" {
							return fmt.Errorf("cluster a has no forward of port 2223 before the apply")
						}
						env.Sim.AfterNextCall("listPortForwardingRules", func() { deleted <- env.Sim.DeleteRule(worker) })
						return nil
					}),
				}},
				Check: func(*terraform.State) error {
					select {
					case err := <-deleted:
						if err != nil {
							return fmt.Errorf("deleting a's worker forward inside the apply: %w", err)
						}
					default:
						return fmt.Errorf("the apply listed no forwards: the worker forward was never deleted inside it")
					}
					for _, name := range []string{"a", "b"} {
						var ports []int
						for _, pf := range env.Forwards(cluster(name)) {
							ports = append(ports, pf.PublicPort)
						}
						slices.Sort(ports)
						if !slices.Equal(ports, []int{2222, 2223}) {
							return fmt.Errorf("cluster %s has forwards on ports %v after the apply, want 2222 and 2223", name, ports)
						}
					}
					return nil
				},
			},
		},
	})
}

// forwardOn is the id of the forward of a public port, "" when none.
func forwardOn(forwards []cloudstack.PortForwardingRule, port int) string {
	for _, pf := range forwards {
		if pf.PublicPort == port {
			return pf.ID
		}
	}
	return ""
}
