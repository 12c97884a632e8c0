package provider

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// expectNoDrift fails when the refresh before a plan changed the resource:
// the state the provider saved then matched CloudStack.
type expectNoDrift struct{ addr string }

func (c expectNoDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc.Address == c.addr {
			resp.Error = fmt.Errorf("the refresh changed %s, so the state saved before did not match CloudStack:\nsaved:     %v\nrefreshed: %v",
				c.addr, rc.Change.Before, rc.Change.After)
			return
		}
	}
}

// TestAccCluster_scaleJobFailsAfterRemovingVM injects a failure into a
// scale-down job after it removed a worker. The apply fails, the state it
// leaves matches CloudStack (the next refresh finds no drift) and records
// the one worker that exists, the rules are back in the provider's layout,
// and the next plan is empty; once an administrator has corrected
// node_count and the state scanner has run, the cluster is Running.
func TestAccCluster_scaleJobFailsAfterRemovingVM(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	var id string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				Config: env.etcdCluster(3, 2).String(),
				Check:  recordClusterID(&id),
			},
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("scale-down", "vm-removed", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: env.etcdCluster(3, 1).String(),
				ExpectError: errorFragments("Cluster Operation Failed", "Scaling cluster", "to 1 workers failed",
					"Scaling failed for Kubernetes cluster", "The state now holds the cluster as CloudStack reports it"),
			},
			{
				Config: env.etcdCluster(3, 1).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectNoDrift{clusterAddr},
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("cloudstack_state", knownvalue.StringExact("Alert")),
					expectAttr("size", knownvalue.Int64Exact(1)),
					expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
					expectAttr("nodes", nodeRoles("etcd", "etcd", "etcd", "control", "worker")),
				},
			},
			{
				PreConfig: func() {
					if err := env.Sim.SetClusterNodeCount(id, 1); err != nil {
						t.Fatal(err)
					}
					env.Sim.RunScanner()
				},
				Config: env.etcdCluster(3, 1).String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectAttr("cloudstack_state", knownvalue.StringExact("Running"))},
				Check:             env.checkCluster(t, clusterAddr, 1, etcdFirewalls(1, 3)),
			},
		},
	})
}

// TestAccCluster_transientReadErrorsRetried makes reads fail with 503 twice
// per command; the provider's reads retry and the apply succeeds.
func TestAccCluster_transientReadErrorsRetried(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(size int) string {
		return env.cluster("retries").size(size).String()
	}
	readCommands := []string{"listKubernetesClusters", "queryAsyncJobResult", "listNetworks", "listFirewallRules", "listPortForwardingRules"}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{Config: config(1)},
			{
				PreConfig: func() {
					for _, command := range readCommands {
						env.Sim.FailNextCalls(command, 2, 503, "Service Unavailable")
					}
				},
				Config: config(2),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("size", knownvalue.Int64Exact(2)),
					expectAttr("state", knownvalue.StringExact("Running")),
				},
				Check: func(*terraform.State) error {
					// Every injected failure was consumed by a read that was
					// then retried: a client without retries now succeeds.
					api, err := cloudstack.New(cloudstack.Config{APIURL: env.Info.APIURL, APIKey: env.Info.APIKey,
						SecretKey: env.Info.SecretKey, Retry: cloudstack.RetryPolicy{MaxAttempts: 1}})
					if err != nil {
						return err
					}
					ctx := context.Background()
					if _, err := api.ListKubernetesClusters(ctx, cloudstack.ListClustersParams{}); err != nil {
						return fmt.Errorf("an injected listKubernetesClusters failure was not consumed: %w", err)
					}
					if _, err := api.ListFirewallRules(ctx, cloudstack.ListRulesParams{}); err != nil {
						return fmt.Errorf("an injected listFirewallRules failure was not consumed: %w", err)
					}
					if _, err := api.QueryAsyncJob(ctx, "no-such-job"); cloudstack.IsTransient(err) {
						return fmt.Errorf("an injected queryAsyncJobResult failure was not consumed: %w", err)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_failedCreateIsDeleted injects a failure into the create
// job. CloudStack keeps the failed cluster; the provider deletes it and says
// so, and the next apply creates exactly one cluster.
func TestAccCluster_failedCreateIsDeleted(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	env := newSimEnv(t)
	config := env.cluster("failing").String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: errorFragments("Cluster Creation Failed", "CloudStack keeps a failed cluster", "the provider deleted it; nothing is left behind"),
			},
			{
				PreConfig: func() {
					if n := len(env.liveClusters()); n != 0 {
						t.Fatalf("%d cluster(s) left after the failed create", n)
					}
				},
				Config: config,
				Check: func(*terraform.State) error {
					if n := len(env.liveClusters()); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_failedCreateKeptWhenDeleteFails makes the create job fail
// and the clean-up delete fail too. The half-made cluster is kept in state
// as tainted, and the next apply replaces it: one cluster in the end.
func TestAccCluster_failedCreateKeptWhenDeleteFails(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.cluster("failing").String()
	var failedID string
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					if err := env.Sim.FailJobStep("create", "nodes-ready", 1, ""); err != nil {
						t.Fatal(err)
					}
					if err := env.Sim.FailJobStep("delete", "vms", 1, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: errorFragments("Cluster Creation Failed", "Deleting the half-made cluster failed too", "kept in state and marked tainted, so the next apply deletes and replaces it"),
			},
			{
				PreConfig: func() {
					d := env.Sim.DumpState()
					if len(d.Clusters) != 1 || d.Clusters[0].Removed {
						t.Fatalf("want the failed cluster kept, got %+v", d.Clusters)
					}
					failedID = d.Clusters[0].ID
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					if id == failedID {
						return fmt.Errorf("the failed cluster %s was not replaced", id)
					}
					if n := len(env.liveClusters()); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// TestAccCluster_createPollFailureKeepsCluster: one HTTP 530 from
// queryAsyncJobResult while the create job runs is a failed poll, not a
// failed job. The poll is retried, the cluster is kept and recorded as it is,
// and nothing is deleted.
func TestAccCluster_createPollFailureKeepsCluster(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.cluster("polled").String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.Sim.ResetCallCounts()
					env.Sim.FailNextCalls("queryAsyncJobResult", 1, 530, "Injected failure of queryAsyncJobResult")
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("state", knownvalue.StringExact("Running")),
					expectAttr("cloudstack_state", knownvalue.StringExact("Running")),
				},
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					if ids := env.liveIDs("polled"); len(ids) != 1 || ids[0] != id {
						return fmt.Errorf("live clusters %v, want only %s", ids, id)
					}
					counts := env.Sim.CallCounts()
					if counts["deleteKubernetesCluster"] != 0 || counts["queryAsyncJobResult"] < 2 {
						return fmt.Errorf("calls %v: want the failed poll retried and nothing deleted", counts)
					}
					return expectUntainted(s)
				},
			},
			{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// interrupter cancels the applies in flight, as terraform-plugin-go does
// for every request in flight when Terraform is interrupted (Ctrl-C makes
// Terraform send StopProvider, which cancels them). Later applies are not
// affected.
type interrupter struct {
	mu       sync.Mutex
	inFlight map[int]context.CancelFunc
	next     int
}

// interrupt cancels the applies in flight.
func (i *interrupter) interrupt() {
	i.mu.Lock()
	defer i.mu.Unlock()
	for _, cancel := range i.inFlight {
		cancel()
	}
}

// factories serve the provider with applies that interrupt can cancel.
func (i *interrupter) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"cks": func() (tfprotov6.ProviderServer, error) {
			srv, err := testAccProtoV6ProviderFactories["cks"]()
			return &interruptibleServer{ProviderServer: srv, i: i}, err
		},
	}
}

type interruptibleServer struct {
	tfprotov6.ProviderServer
	i *interrupter
}

func (s *interruptibleServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.i.mu.Lock()
	if s.i.inFlight == nil {
		s.i.inFlight = map[int]context.CancelFunc{}
	}
	s.i.next++
	key := s.i.next
	s.i.inFlight[key] = cancel
	s.i.mu.Unlock()
	defer func() {
		s.i.mu.Lock()
		delete(s.i.inFlight, key)
		s.i.mu.Unlock()
	}()
	return s.ProviderServer.ApplyResourceChange(ctx, req)
}

// TestAccCluster_createInterruptedKeptUntainted: Terraform is interrupted
// while CloudStack creates the cluster. The healthy cluster is recorded, not
// tainted (and not blamed on the create timeout); the next plan does not
// replace it, and the next apply finishes.
func TestAccCluster_createInterruptedKeptUntainted(t *testing.T) {
	dependsOnTheCLI(t)
	t.Parallel()
	// A create job long enough that a slow machine still reads the cluster
	// before the job ends.
	env := newSimEnv(t, simtest.WithJobDuration(3*time.Second))
	proxy := newFaultProxy(t, env.Info.APIURL)
	var stop interrupter
	sameID := statecheck.CompareValue(compare.ValuesSame())
	config := env.cluster("interrupted").through(env.providerAt(proxy.URL())).String()
	accTest(t, resource.TestCase{
		ProtoV6ProviderFactories: stop.factories(),
		CheckDestroy:             env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					proxy.afterNext("createKubernetesCluster", stop.interrupt)
				},
				Config: config,
				// Recorded while CloudStack was still creating it.
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("cloudstack_state", knownvalue.StringRegexp(regexpMust("^(Created|Starting)$"))),
					expectAttr("state", knownvalue.StringExact("Running")),
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
				},
				Check: func(s *terraform.State) error {
					if n := env.Sim.CallCounts()["deleteKubernetesCluster"]; n != 0 {
						return fmt.Errorf("deleteKubernetesCluster sent %d times after an interrupt", n)
					}
					return expectUntainted(s)
				},
			},
			{
				PreConfig: func() {
					// Let CloudStack finish the create it went on with.
					deadline := time.Now().Add(10 * time.Second)
					for time.Now().Before(deadline) {
						if d := env.Sim.DumpState(); len(d.Clusters) == 1 && d.Clusters[0].State == "Running" {
							break
						}
						time.Sleep(50 * time.Millisecond)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectNotReplaced{clusterAddr},
				}},
				// The interrupted cluster is kept, and it is the only one.
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("cloudstack_state", knownvalue.StringExact("Running")),
					sameID.AddStateValue(clusterAddr, tfjsonpath.New("id")),
				},
				Check: func(s *terraform.State) error {
					if n := len(env.liveClusters()); n != 1 {
						return fmt.Errorf("%d clusters exist, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// expectNotReplaced is a plan check: the resource is not destroyed.
type expectNotReplaced struct{ addr string }

func (c expectNotReplaced) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == c.addr && rc.Change.Actions.Delete() || rc.Address == c.addr && rc.Change.Actions.Replace() {
			resp.Error = fmt.Errorf("%s is planned for %v, want it kept", c.addr, rc.Change.Actions)
		}
	}
}

// TestAccCluster_autoscalerRefusedAfterCreate: the autoscaler's max_size plus
// the control node exceeds CloudStack's cloud.kubernetes.cluster.max.size
// (10), which CloudStack refuses only when the autoscaler is configured,
// after the create. The cluster is kept untainted (a new one would fail the
// same way); the next plan shows the autoscaler as an in-place change, whose
// apply fails clearly without destroying anything; with a max_size that fits,
// it converges on the same cluster.
func TestAccCluster_autoscalerRefusedAfterCreate(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := func(maxSize int) string {
		return env.cluster("autoscaled").autoscaled(maxSize).String()
	}
	var firstID string
	sameCluster := func(s *terraform.State) error {
		if id, err := clusterID(s); err != nil || id != firstID {
			return fmt.Errorf("state holds %s (%v), want cluster %s kept", id, err, firstID)
		}
		if ids := env.liveIDs("autoscaled"); len(ids) != 1 || ids[0] != firstID {
			return fmt.Errorf("live clusters %v, want only %s", ids, firstID)
		}
		return nil
	}
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				// The plan after the apply shows the autoscaler still to
				// configure: the state records it off.
				Config:             config(10),
				ExpectNonEmptyPlan: true,
				Check: func(s *terraform.State) error {
					id, err := clusterID(s)
					if err != nil {
						return err
					}
					firstID = id
					c, err := env.API.GetKubernetesCluster(context.Background(), id)
					if err != nil || c.AutoscalingEnabled || len(env.liveClusters()) != 1 {
						return fmt.Errorf("want the one cluster, without the autoscaler: %+v, %v", c, err)
					}
					return expectUntainted(s)
				},
			},
			{
				Config: config(10),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(clusterAddr, plancheck.ResourceActionUpdate),
				}},
				ExpectError: errorFragments("Maximum cluster size can not exceed 10"),
			},
			{
				Config: config(9),
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("autoscaling", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"enabled": knownvalue.Bool(true), "min_size": knownvalue.Int64Exact(1), "max_size": knownvalue.Int64Exact(9),
					})),
				},
				Check: sameCluster,
			},
		},
	})
}

// TestAccCluster_createPlanChecksAutoscaler: what can be known before
// creating is checked at plan time. A Kubernetes version that does not
// support the autoscaler (here, the simulator's answer rewritten to say so)
// fails the plan on autoscaling, before any cluster exists.
func TestAccCluster_createPlanChecksAutoscaler(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	proxy := newFaultProxy(t, env.Info.APIURL)
	proxy.rewrite("listKubernetesSupportedVersions", func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"supportsautoscaling":true`), []byte(`"supportsautoscaling":false`))
	})
	config := env.cluster("planned").autoscaled(3).through(env.providerAt(proxy.URL())).String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{{
			Config:      config,
			PlanOnly:    true,
			ExpectError: errorFragments("Autoscaling Not Possible", "does not support the cluster autoscaler"),
		}},
	})
	if n := len(env.liveClusters()); n != 0 {
		t.Errorf("%d clusters exist, want none", n)
	}
}

// TestAccCluster_createSetUpStepHealed: a rule step after the create fails
// once (createFirewallRule answers 503, and a mutation is never retried by
// the client) and succeeds when the set-up is tried again in the same apply.
// The apply reports what is true at the end: no error, the rules in the
// provider's layout.
func TestAccCluster_createSetUpStepHealed(t *testing.T) {
	t.Parallel()
	env := newSimEnv(t)
	config := env.cluster("healed").etcd(1).String()
	accTest(t, resource.TestCase{
		CheckDestroy: env.expectNothingLeft,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					env.Sim.ResetCallCounts()
					env.Sim.FailNextCalls("createFirewallRule", 1, 503, "Injected failure of createFirewallRule")
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					expectAttr("ssh_rules_in_sync", knownvalue.Bool(true)),
					expectAttr("state", knownvalue.StringExact("Running")),
				},
				Check: func(s *terraform.State) error {
					if n := env.Sim.CallCounts()["createFirewallRule"]; n < 2 {
						return fmt.Errorf("createFirewallRule sent %d times: the injected failure was not met", n)
					}
					return expectUntainted(s)
				},
			},
			{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}
