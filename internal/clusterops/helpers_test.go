package clusterops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// testEnv is a started simulator with a client for its admin account.
type testEnv struct {
	t    *testing.T
	sim  *simulator.Simulator
	info simulator.Info
	api  *cloudstack.Client
}

var fastWait = cloudstack.WaitOptions{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond}

func newEnv(t *testing.T, profile string) *testEnv {
	t.Helper()
	return newEnvWithJobs(t, profile, 3*time.Millisecond)
}

// newEnvWithJobs starts a simulator whose jobs each take jobDuration.
func newEnvWithJobs(t *testing.T, profile string, jobDuration time.Duration) *testEnv {
	t.Helper()
	sim, err := simulator.New(simulator.Options{Profile: profile, JobDuration: jobDuration})
	if err != nil {
		t.Fatalf("simulator.New: %v", err)
	}
	if err := sim.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("simulator Start: %v", err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	info := sim.Info()
	api, err := cloudstack.New(cloudstack.Config{APIURL: info.APIURL, APIKey: info.APIKey, SecretKey: info.SecretKey,
		Retry: cloudstack.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}})
	if err != nil {
		t.Fatalf("cloudstack.New: %v", err)
	}
	return &testEnv{t: t, sim: sim, info: info, api: api}
}

func (e *testEnv) engine(opts Options) *Engine {
	opts.Wait = fastWait
	return New(e.api, opts)
}

func (e *testEnv) ctx() context.Context {
	ctx, cancel := context.WithTimeout(e.t.Context(), 60*time.Second)
	e.t.Cleanup(cancel)
	return ctx
}

// createCluster creates 1 control + etcd etcd VMs + size workers through the
// API (not the engine) and waits for it, as seed 000 does.
func (e *testEnv) createCluster(name string, etcd, size int64) string {
	e.t.Helper()
	return e.createClusterIn(name, "", etcd, size)
}

// createClusterIn is createCluster on a given network ("" lets CKS create one).
func (e *testEnv) createClusterIn(name, networkID string, etcd, size int64) string {
	e.t.Helper()
	return e.createClusterWith(cloudstack.CreateClusterParams{Name: name, NetworkID: networkID, EtcdNodes: etcd, Size: size})
}

// createClusterWith creates a cluster from p, with the seeded zone,
// offering, version 1.33.13 and key pair, and one control node unless p
// says otherwise.
func (e *testEnv) createClusterWith(p cloudstack.CreateClusterParams) string {
	e.t.Helper()
	ctx := e.ctx()
	p.Description = p.Name
	p.ZoneID = e.info.ZoneID
	p.KubernetesVersionID = e.info.KubernetesVersions["1.33.13"]
	p.ServiceOfferingID = e.info.ServiceOfferingID
	p.ControlNodes = max(p.ControlNodes, 1)
	p.NodeRootDiskSize, p.Keypair, p.Hypervisor = 80, e.info.Keypair, "kvm"
	ref, err := e.api.CreateKubernetesCluster(ctx, p)
	if err != nil {
		e.t.Fatalf("createKubernetesCluster: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, e.api, ref.JobID, fastWait); err != nil {
		e.t.Fatalf("create job: %v", err)
	}
	return ref.ID
}

// rawScale scales through the API, as an out-of-band change would.
func (e *testEnv) rawScale(id string, size int64) error {
	e.t.Helper()
	ctx := e.ctx()
	ref, err := e.api.ScaleKubernetesCluster(ctx, cloudstack.ScaleClusterParams{ID: id, Size: &size})
	if err != nil {
		return err
	}
	_, err = cloudstack.WaitForJob(ctx, e.api, ref.JobID, fastWait)
	return err
}

func (e *testEnv) cluster(id string) *cloudstack.Cluster {
	e.t.Helper()
	c, err := e.api.GetKubernetesCluster(e.ctx(), id)
	if err != nil {
		e.t.Fatalf("reading cluster %s: %v", id, err)
	}
	return c
}

func (e *testEnv) firewallRules(ipID string) []cloudstack.FirewallRule {
	e.t.Helper()
	fws, err := e.api.ListFirewallRules(e.ctx(), cloudstack.ListRulesParams{IPAddressID: ipID, ListAll: true})
	if err != nil {
		e.t.Fatalf("listFirewallRules: %v", err)
	}
	return fws
}

func (e *testEnv) forwards(ipID string) []cloudstack.PortForwardingRule {
	e.t.Helper()
	pfs, err := e.api.ListPortForwardingRules(e.ctx(), cloudstack.ListRulesParams{IPAddressID: ipID, ListAll: true})
	if err != nil {
		e.t.Fatalf("listPortForwardingRules: %v", err)
	}
	return pfs
}

// firewallShape is the sorted "start-end cidrs" of the rules.
func firewallShape(fws []cloudstack.FirewallRule) []string {
	out := make([]string, 0, len(fws))
	for _, fw := range fws {
		out = append(out, fmt.Sprintf("%s %s %v", fw.Protocol, portRange(fw.StartPort, fw.EndPort), fw.CIDRList))
	}
	sort.Strings(out)
	return out
}

// forwardTargets maps each forward's public port to its VM.
func forwardTargets(t *testing.T, pfs []cloudstack.PortForwardingRule) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, pf := range pfs {
		if pf.PrivatePort != 22 {
			t.Errorf("forward %d goes to private port %d, want 22", pf.PublicPort, pf.PrivatePort)
		}
		if _, dup := out[pf.PublicPort]; dup {
			t.Errorf("two forwards on public port %d", pf.PublicPort)
		}
		out[pf.PublicPort] = pf.VirtualMachineID
	}
	return out
}

// expectedTargets is the forward layout of a 1-control cluster: 2222 the
// control VM, 2223.. the workers in map order, 50000.. the etcd VMs.
func expectedTargets(c *cloudstack.Cluster) map[int]string {
	out := map[int]string{}
	node, etcd := 0, 0
	for _, vm := range c.VirtualMachines {
		if vm.IsEtcdNode {
			out[50000+etcd] = vm.ID
			etcd++
			continue
		}
		out[2222+node] = vm.ID
		node++
	}
	return out
}

// assertSeedRules checks the exact firewall rules and forwards of seed
// 000's end state: 1 control, 3 etcd, 1 worker.
func (e *testEnv) assertSeedRules(id string) *cloudstack.Cluster {
	e.t.Helper()
	c := e.cluster(id)
	wantFW := []string{"tcp 2222-2223 [0.0.0.0/0]", "tcp 50000 [0.0.0.0/0]", "tcp 50001 [0.0.0.0/0]",
		"tcp 50002 [0.0.0.0/0]", "tcp 6443 [0.0.0.0/0]"}
	if got := firewallShape(e.firewallRules(c.IPAddressID)); !slices.Equal(got, wantFW) {
		e.t.Errorf("firewall rules = %v, want %v", got, wantFW)
	}
	got := forwardTargets(e.t, e.forwards(c.IPAddressID))
	want := expectedTargets(c)
	if len(want) != 5 {
		e.t.Fatalf("VM map %+v does not have 5 VMs", c.VirtualMachines)
	}
	for port, vm := range want {
		if got[port] != vm {
			e.t.Errorf("forward %d → VM %q, want VM %q", port, got[port], vm)
		}
	}
	if len(got) != len(want) {
		e.t.Errorf("forwards %v, want exactly %v", got, want)
	}
	return c
}

// assertHazardFree checks that no rule of the cluster is one the #14159
// predicate would pick before the node SSH range.
func (e *testEnv) assertHazardFree(id string) {
	e.t.Helper()
	s, err := New(e.api, Options{Wait: fastWait}).Snapshot(e.ctx(), id)
	if err != nil {
		e.t.Fatalf("Snapshot: %v", err)
	}
	if _, ok := s.NodeSSHRange(); !ok {
		e.t.Errorf("cluster %s has no node SSH range", id)
	}
	for _, h := range s.Hazards {
		e.t.Errorf("hazard left: %s", h.Explanation)
	}
}

// sshRun runs a command as user cloud with the simulator's key pair. A
// command that runs and exits non-zero is not an error: the exit status is
// returned; err is a failure to connect, authenticate or run.
func (e *testEnv) sshRun(clusterID, host string, port int, cmd string) (out string, status int, err error) {
	signer, err := ssh.ParsePrivateKey(e.sim.PrivateKeyPEM())
	if err != nil {
		return "", 0, err
	}
	hostKey := e.sim.HostKey(clusterID)
	if hostKey == nil {
		return "", 0, fmt.Errorf("no host key for cluster %s", clusterID)
	}
	cfg := &ssh.ClientConfig{User: "cloud", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(hostKey), Timeout: 10 * time.Second}
	client, err := ssh.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)), cfg)
	if err != nil {
		return "", 0, err
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return "", 0, err
	}
	defer sess.Close()
	raw, err := sess.Output(cmd)
	var exit *ssh.ExitError
	if errors.As(err, &exit) {
		return string(raw), exit.ExitStatus(), nil
	}
	return string(raw), 0, err
}

// assertSSH checks that SSH as cloud works on every node port of a seed
// cluster (1 control, 1 worker, 3 etcd) and that the control node at 2222
// lists the two Kubernetes nodes. The simulated nodes cannot tell who they
// are, so the target of each port is checked through the API instead.
func (e *testEnv) assertSSH(id string, c *cloudstack.Cluster) {
	e.t.Helper()
	out, status, err := e.sshRun(id, c.IPAddress, 2222, "sudo /opt/bin/kubectl get nodes -o name")
	if err != nil || status != 0 || len(strings.Fields(out)) != 2 {
		e.t.Errorf("kubectl get nodes over SSH to %s:2222 = %q, status %d, %v; want two nodes", c.IPAddress, out, status, err)
	}
	for _, port := range []int{2223, 50000, 50001, 50002} {
		if _, _, err := e.sshRun(id, c.IPAddress, port, "true"); err != nil {
			e.t.Errorf("SSH to %s:%d: %v", c.IPAddress, port, err)
		}
	}
}

// collateralCluster is a 2-worker cluster without etcd on which the user
// took port 2224 for a forward to the control VM, which a scale to 1
// deletes. It returns the cluster and the forward's id.
func (e *testEnv) collateralCluster(name string, cidrs ...string) (*cloudstack.Cluster, string) {
	e.t.Helper()
	ctx := e.ctx()
	id := e.createCluster(name, 0, 2)
	c := e.cluster(id)
	for _, pf := range e.forwards(c.IPAddressID) {
		if pf.PublicPort == 2224 {
			if err := e.sim.DeleteRule(pf.ID); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	ref, err := e.api.CreatePortForwardingRule(ctx, cloudstack.CreatePortForwardingRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", PublicPort: 2224, PrivatePort: 8080, VirtualMachineID: c.VirtualMachines[0].ID, NetworkID: c.NetworkID,
		CIDRList: cidrs})
	if err != nil {
		e.t.Fatalf("createPortForwardingRule: %v", err)
	}
	if _, err := cloudstack.WaitForJob(ctx, e.api, ref.JobID, fastWait); err != nil {
		e.t.Fatal(err)
	}
	return c, ref.ID
}
