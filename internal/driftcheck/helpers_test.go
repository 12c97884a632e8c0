package driftcheck

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// simEnv is an in-process simulator and a client for its admin account.
type simEnv struct {
	t    *testing.T
	sim  *simulator.Simulator
	info simulator.Info
	api  *cloudstack.Client
}

// clusterAge is how long before the test the simulated clusters were
// created: well past the 15-minute grace period, as in seed 004's test.
const clusterAge = 40 * time.Minute

func newSimEnv(t *testing.T) *simEnv {
	t.Helper()
	return newSimEnvListing(t, "", simulator.ListOrderFromEnv())
}

// newOrderedSimEnv is newSimEnv for checks of an untouched cluster in CKS's
// own etcd rule layout, whose verdict reads the server's list order, which a
// shuffled list hides (see simulator.OrderedListOrderFromEnv).
func newOrderedSimEnv(t *testing.T, profile string) *simEnv {
	t.Helper()
	return newSimEnvListing(t, profile, simulator.OrderedListOrderFromEnv())
}

func newSimEnvListing(t *testing.T, profile, listOrder string) *simEnv {
	t.Helper()
	sim, err := simulator.New(simulator.Options{
		Profile:   profile,
		Clock:     func() time.Time { return time.Now().Add(-clusterAge) },
		ListOrder: listOrder,
	})
	if err != nil {
		t.Fatalf("simulator: %v", err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("simulator: %v", err)
	}
	info := sim.Info()
	api, err := cloudstack.New(cloudstack.Config{APIURL: info.APIURL, APIKey: info.APIKey, SecretKey: info.SecretKey,
		Retry: cloudstack.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return &simEnv{t: t, sim: sim, info: info, api: api}
}

// clusterSpec describes a cluster to create through the API.
type clusterSpec struct {
	name      string
	control   int64
	etcd      int64
	size      int64
	networkID string
	projectID string
}

// createCluster creates a cluster and waits for it to run.
func (e *simEnv) createCluster(spec clusterSpec) *cloudstack.Cluster {
	e.t.Helper()
	ctx := context.Background()
	ref, err := e.api.CreateKubernetesCluster(ctx, cloudstack.CreateClusterParams{
		Ownership:           cloudstack.Ownership{ProjectID: spec.projectID},
		Name:                spec.name,
		ZoneID:              e.info.ZoneID,
		KubernetesVersionID: e.info.KubernetesVersions["1.33.13"],
		ServiceOfferingID:   e.info.ServiceOfferingID,
		ControlNodes:        max(spec.control, 1),
		EtcdNodes:           spec.etcd,
		Size:                max(spec.size, 1),
		Keypair:             e.info.Keypair,
		NetworkID:           spec.networkID,
	})
	if err != nil {
		e.t.Fatalf("create %s: %v", spec.name, err)
	}
	e.waitJob(ref.JobID)
	return e.cluster(ref.ID)
}

func (e *simEnv) waitJob(jobID string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := cloudstack.WaitForJob(ctx, e.api, jobID, cloudstack.WaitOptions{
		InitialInterval: time.Millisecond, MaxInterval: 20 * time.Millisecond}); err != nil {
		e.t.Fatalf("job %s: %v", jobID, err)
	}
}

// scale runs a scale job; failures are returned, as seed 000's last scale fails.
func (e *simEnv) scale(id string, size int64) error {
	e.t.Helper()
	ref, err := e.api.ScaleKubernetesCluster(context.Background(), cloudstack.ScaleClusterParams{ID: id, Size: &size})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = cloudstack.WaitForJob(ctx, e.api, ref.JobID, cloudstack.WaitOptions{
		InitialInterval: time.Millisecond, MaxInterval: 20 * time.Millisecond})
	return err
}

// cluster reads a cluster back (projects included).
func (e *simEnv) cluster(id string) *cloudstack.Cluster {
	e.t.Helper()
	for _, p := range []cloudstack.ListClustersParams{{ID: id, ListAll: true}, {ID: id, Ownership: cloudstack.Ownership{ProjectID: "-1"}}} {
		list, err := e.api.ListKubernetesClusters(context.Background(), p)
		if err != nil {
			e.t.Fatalf("list cluster %s: %v", id, err)
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

// workerVM returns the cluster's nth mapped worker VM, counting by SSH port.
func (e *simEnv) workerVM(cl *cloudstack.Cluster, nth int) cloudstack.ClusterVM {
	e.t.Helper()
	port := map[string]int{}
	for _, pf := range e.forwards(cl) {
		port[pf.VirtualMachineID] = pf.PublicPort
	}
	var found []cloudstack.ClusterVM
	for _, vm := range cl.VirtualMachines {
		if strings.Contains(vm.Name, "-node-") {
			found = append(found, vm)
		}
	}
	if nth >= len(found) {
		e.t.Fatalf("cluster %s has no worker #%d", cl.Name, nth+1)
	}
	// The nth worker by SSH port, whatever order the API lists the map in.
	slices.SortFunc(found, func(a, b cloudstack.ClusterVM) int { return cmp.Compare(port[a.ID], port[b.ID]) })
	return found[nth]
}

// checker is a Checker on the simulator.
func (e *simEnv) checker() *Checker { return &Checker{API: e.api} }

// sshOptions reach the cluster's control node with the seeded key pair and
// its pinned host key.
func (e *simEnv) sshOptions(clusterID string) SSHOptions {
	e.t.Helper()
	key := e.sim.HostKey(clusterID)
	if key == nil {
		e.t.Fatalf("no host key for cluster %s", clusterID)
	}
	return SSHOptions{PrivateKey: e.sim.PrivateKeyPEM(), HostKey: string(ssh.MarshalAuthorizedKey(key))}
}

// sshRequest is a full check of the cluster over SSH with rules.
func (e *simEnv) sshRequest(clusterID string) Request {
	return Request{ClusterID: clusterID, Options: Options{NodeSource: NodeSourceSSH, SSH: e.sshOptions(clusterID),
		GracePeriod: drift.DefaultGracePeriod, CheckNetworkRules: true, NodeTimeout: 10 * time.Second}}
}

func (e *simEnv) mustCheck(req Request) (drift.Result, Stats) {
	e.t.Helper()
	res, st, err := e.checker().Check(context.Background(), req)
	if err != nil {
		e.t.Fatalf("Check: %v", err)
	}
	return res, st
}

func findingKinds(r drift.Result) []string {
	out := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		out = append(out, f.Kind)
	}
	return out
}

func assertKinds(t *testing.T, r drift.Result, want ...string) {
	t.Helper()
	if got := findingKinds(r); !slices.Equal(got, want) {
		t.Fatalf("findings %v, want %v\n%s", got, want, describe(r))
	}
	if r.InSync != (len(want) == 0) {
		t.Fatalf("InSync = %v with findings %v", r.InSync, want)
	}
}

func describe(r drift.Result) string {
	var b strings.Builder
	b.WriteString(r.Summary)
	for _, f := range r.Findings {
		b.WriteString("\n  " + f.Kind + ": " + f.Message)
	}
	return b.String()
}

// forwards lists the port forwards of the cluster's network.
func (e *simEnv) forwards(cl *cloudstack.Cluster) []cloudstack.PortForwardingRule {
	e.t.Helper()
	list, err := e.api.ListPortForwardingRules(context.Background(), cloudstack.ListRulesParams{NetworkID: cl.NetworkID,
		ProjectID: cl.ProjectID})
	if err != nil {
		e.t.Fatal(err)
	}
	return list
}
