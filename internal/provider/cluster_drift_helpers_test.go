package provider

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// The drift acceptance tests create their clusters through the CloudStack
// API (not cks_cluster) and cause drift through the simulator's admin
// methods, then read cks_cluster_drift with the real Terraform CLI.

const driftAddr = "data.cks_cluster_drift.test"

// driftClusterAge is how long before the test the clusters were created,
// past the 15-minute grace period, as in seed 004's test cluster.
const driftClusterAge = 40 * time.Minute

// driftEnv is a simulator with a client for driving it.
type driftEnv struct {
	*simEnv
	t   *testing.T
	api *cloudstack.Client
}

func newDriftEnv(t *testing.T, opts ...simOption) *driftEnv {
	t.Helper()
	aged := withClock(func() time.Time { return time.Now().Add(-driftClusterAge) })
	env := newSimEnv(t, append([]simOption{aged, withJobDuration(0)}, opts...)...)
	api, err := cloudstack.New(cloudstack.Config{APIURL: env.Info.APIURL, APIKey: env.Info.APIKey,
		SecretKey: env.Info.SecretKey, Retry: cloudstack.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &driftEnv{simEnv: env, t: t, api: api}
}

// driftClusterSpec describes a cluster to create through the API.
type driftClusterSpec struct {
	name      string
	etcd      int64
	size      int64
	projectID string
}

// create creates a running cluster with the seeded key pair.
func (e *driftEnv) create(spec driftClusterSpec) *cloudstack.Cluster {
	e.t.Helper()
	ref, err := e.api.CreateKubernetesCluster(context.Background(), cloudstack.CreateClusterParams{
		Ownership:           cloudstack.Ownership{ProjectID: spec.projectID},
		Name:                spec.name,
		ZoneID:              e.Info.ZoneID,
		KubernetesVersionID: e.VersionID(e.t, "1.33.13"),
		ServiceOfferingID:   e.Info.ServiceOfferingID,
		ControlNodes:        1,
		EtcdNodes:           spec.etcd,
		Size:                max(spec.size, 1),
		Keypair:             e.Info.Keypair,
	})
	if err != nil {
		e.t.Fatalf("creating %s: %v", spec.name, err)
	}
	if err := e.wait(ref.JobID); err != nil {
		e.t.Fatalf("creating %s: %v", spec.name, err)
	}
	return e.cluster(ref.ID)
}

func (e *driftEnv) wait(jobID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := cloudstack.WaitForJob(ctx, e.api, jobID, cloudstack.WaitOptions{
		InitialInterval: time.Millisecond, MaxInterval: 20 * time.Millisecond})
	return err
}

// scale runs a scale job and returns its failure, if any.
func (e *driftEnv) scale(id string, size int64) error {
	e.t.Helper()
	ref, err := e.api.ScaleKubernetesCluster(context.Background(), cloudstack.ScaleClusterParams{ID: id, Size: &size})
	if err != nil {
		return err
	}
	return e.wait(ref.JobID)
}

// cluster reads a cluster back, project clusters included.
func (e *driftEnv) cluster(id string) *cloudstack.Cluster {
	e.t.Helper()
	for _, p := range []cloudstack.ListClustersParams{{ID: id, ListAll: true}, {ID: id, Ownership: cloudstack.Ownership{ProjectID: "-1"}}} {
		list, err := e.api.ListKubernetesClusters(context.Background(), p)
		if err != nil {
			e.t.Fatal(err)
		}
		for i := range list {
			if list[i].ID == id {
				return &list[i]
			}
		}
	}
	e.t.Fatalf("cluster %s not found", id)
	return nil
}

// worker returns the cluster's nth mapped worker VM, counting by SSH port.
func (e *driftEnv) worker(cl *cloudstack.Cluster, nth int) cloudstack.ClusterVM {
	e.t.Helper()
	forwards, err := e.api.ListPortForwardingRules(context.Background(), cloudstack.ListRulesParams{NetworkID: cl.NetworkID})
	if err != nil {
		e.t.Fatal(err)
	}
	port := map[string]int{}
	for _, pf := range forwards {
		port[pf.VirtualMachineID] = pf.PublicPort
	}
	var workers []cloudstack.ClusterVM
	for _, vm := range cl.VirtualMachines {
		if strings.Contains(vm.Name, "-node-") {
			workers = append(workers, vm)
		}
	}
	if nth >= len(workers) {
		e.t.Fatalf("cluster %s has no worker #%d", cl.Name, nth+1)
	}
	// The nth worker by SSH port, whatever order the API lists the map in.
	slices.SortFunc(workers, func(a, b cloudstack.ClusterVM) int { return cmp.Compare(port[a.ID], port[b.ID]) })
	return workers[nth]
}

// deleteForward deletes the cluster's port forward of a public port, as a
// user outside CKS would.
func (e *driftEnv) deleteForward(cl *cloudstack.Cluster, port int) {
	e.t.Helper()
	list, err := e.api.ListPortForwardingRules(context.Background(), cloudstack.ListRulesParams{NetworkID: cl.NetworkID})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, pf := range list {
		if pf.PublicPort == port {
			if err := e.Sim.DeleteRule(pf.ID); err != nil {
				e.t.Fatal(err)
			}
			return
		}
	}
	e.t.Fatalf("no port forward of public port %d", port)
}

// hostKey is the cluster's SSH host key as an authorized_keys line.
func (e *driftEnv) hostKey(clusterID string) string {
	e.t.Helper()
	key := e.Sim.HostKey(clusterID)
	if key == nil {
		e.t.Fatalf("no host key for cluster %s", clusterID)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))
}

// sshHCL is an ssh block with the seeded key pair and the pinned host key.
func (e *driftEnv) sshHCL(clusterID string) string {
	return fmt.Sprintf("  ssh {\n    private_key = file(%q)\n    host_key    = %q\n  }\n", e.KeyFile, e.hostKey(clusterID))
}

// driftHCL is the provider plus data.cks_cluster_drift.test on a cluster.
func (e *driftEnv) driftHCL(clusterID, body string) string {
	return e.ProviderConfig(fmt.Sprintf("\ndata \"cks_cluster_drift\" \"test\" {\n  cluster_id = %q\n%s}\n", clusterID, body))
}

// expectDriftFindings checks in_sync, the finding kinds in order, and counts.
func expectDriftFindings(kinds ...string) []statecheck.StateCheck {
	findings := make([]knownvalue.Check, 0, len(kinds))
	counts := map[string]int{}
	for _, k := range kinds {
		findings = append(findings, knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact(k)}))
		counts[k]++
	}
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New("in_sync"), knownvalue.Bool(len(kinds) == 0)),
		statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New("findings"), knownvalue.ListExact(findings)),
		statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New("counts"), expectDriftCounts(counts)),
	}
}

// expectDriftCounts is the counts map: every kind, zero included.
func expectDriftCounts(counts map[string]int) knownvalue.Check {
	all := map[string]knownvalue.Check{}
	for _, k := range drift.Kinds() {
		all[k] = knownvalue.Int64Exact(int64(counts[k]))
	}
	return knownvalue.MapExact(all)
}

// expectDriftAttr checks one attribute of the drift data source.
func expectDriftAttr(name string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New(name), check)
}

// expectDriftFinding checks fields of the nth finding.
func expectDriftFinding(nth int, fields map[string]knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(driftAddr, tfjsonpath.New("findings").AtSliceIndex(nth), knownvalue.ObjectPartial(fields))
}

// driftContains matches a string attribute containing all of parts.
func driftContains(parts ...string) knownvalue.Check {
	quoted := make([]string, 0, len(parts))
	for _, p := range parts {
		quoted = append(quoted, regexp.QuoteMeta(p))
	}
	return knownvalue.StringRegexp(regexp.MustCompile("(?s)" + strings.Join(quoted, ".*")))
}

// driftErrorPattern matches an error that holds parts in order, however
// Terraform wraps the lines.
func driftErrorPattern(parts ...string) *regexp.Regexp {
	quoted := make([]string, 0, len(parts))
	for _, p := range parts {
		quoted = append(quoted, strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`))
	}
	return regexp.MustCompile("(?s)" + strings.Join(quoted, ".*"))
}
