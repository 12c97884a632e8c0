package provider

import (
	"context"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// What the acceptance tests expect of the simulator and of the errors
// Terraform shows: checks of one step (Check), of the end (CheckDestroy),
// and the one error matcher.

// errorFragments matches an error that contains the fragments in order,
// whatever line wrapping Terraform applied to them.
func errorFragments(fragments ...string) *regexp.Regexp {
	parts := make([]string, 0, len(fragments))
	for _, f := range fragments {
		words := strings.Fields(f)
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		parts = append(parts, strings.Join(words, `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(parts, ".*"))
}

// emptyPlanAfterApply checks that the plan after an apply has nothing left.
var emptyPlanAfterApply = resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}

// etcdFirewalls are the firewall rules of a 1-control cluster with size
// workers and etcd etcd nodes in the provider's layout.
func etcdFirewalls(size, etcd int) []string {
	out := []string{fmt.Sprintf("2222-%d", 2222+size), "6443"}
	if etcd > 0 {
		out = append(out, fmt.Sprintf("50000-%d", 50000+max(etcd-1, 1)))
	}
	slices.Sort(out)
	return out
}

// The end of a test.

// leftBehind lists the live clusters, the VMs but those kept, and the
// rules of the dump.
func leftBehind(d simulator.DumpState, keep ...string) []string {
	var left []string
	for _, c := range d.Clusters {
		if !c.Removed {
			left = append(left, fmt.Sprintf("cluster %s (%s)", c.Name, c.State))
		}
	}
	for _, v := range d.VMs {
		if !v.Expunged && !slices.Contains(keep, v.ID) {
			left = append(left, fmt.Sprintf("VM %s (%s)", v.Name, v.State))
		}
	}
	for _, r := range d.Rules {
		left = append(left, fmt.Sprintf("%s rule %d-%d (%s)", r.Purpose, r.StartPort, r.EndPort, r.State))
	}
	return left
}

// expectNothingLeft is a CheckDestroy: the simulator has no cluster, no VM
// and no network rule left.
func (e *simEnv) expectNothingLeft(*terraform.State) error {
	if left := leftBehind(e.Sim.DumpState()); len(left) > 0 {
		return fmt.Errorf("left behind after destroy: %s", strings.Join(left, ", "))
	}
	return nil
}

// expectNothingLeftNow fails the test unless the simulator has no cluster,
// VM or rule left.
func (e *simEnv) expectNothingLeftNow(t *testing.T) {
	t.Helper()
	if err := e.expectNothingLeft(nil); err != nil {
		t.Fatal(err)
	}
}

// deleteRulesThen deletes user rules the test made, then checks that
// nothing of the cluster is left.
func (e *simEnv) deleteRulesThen(ids *[]string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, id := range *ids {
			if err := e.Sim.DeleteRule(id); err != nil {
				return err
			}
		}
		return e.expectNothingLeft(s)
	}
}

// expectOnlyVMsLeft is a CheckDestroy for clusters with external nodes: no
// cluster and no rule is left, and the external nodes' VMs still run,
// outside any cluster; they are expunged afterwards.
func (e *simEnv) expectOnlyVMsLeft(vmIDs ...string) error {
	d := e.Sim.DumpState()
	problems := leftBehind(d, vmIDs...)
	for _, v := range d.VMs {
		if slices.Contains(vmIDs, v.ID) && (v.Expunged || v.State != "Running") {
			problems = append(problems, fmt.Sprintf("external node VM %s was destroyed (%s)", v.Name, v.State))
		}
	}
	for _, row := range d.VMMap {
		problems = append(problems, fmt.Sprintf("map row of VM %s left", row.VMID))
	}
	for _, id := range vmIDs {
		if err := e.Sim.ExpungeVM(id); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("after destroy: %s", strings.Join(problems, "; "))
	}
	return nil
}

// expectOnlyUserAPIRule is a CheckDestroy: no cluster, VM or CKS rule is
// left, and the user's TCP rule on 6443 from 10.0.0.0/8 is there.
func (e *simEnv) expectOnlyUserAPIRule(*terraform.State) error {
	d := e.Sim.DumpState()
	for _, c := range d.Clusters {
		if !c.Removed {
			return fmt.Errorf("cluster %s (%s) is left", c.Name, c.State)
		}
	}
	var left []string
	for _, r := range d.Rules {
		left = append(left, fmt.Sprintf("%s %s %d-%d %v", r.Purpose, r.Protocol, r.StartPort, r.EndPort, r.CIDRs))
	}
	if want := []string{"Firewall tcp 6443-6443 [10.0.0.0/8]"}; !slices.Equal(left, want) {
		return fmt.Errorf("rules left after the destroy: %v, want only the user's %v", left, want)
	}
	return nil
}

// expectClean fails unless the simulator shows exactly the clusters named
// and nothing leaked or duplicated (see relDumpProblems).
func (e *simEnv) expectClean(wantClusters ...string) error {
	if problems := relDumpProblems(e.Info, e.Sim.DumpState(), wantClusters...); len(problems) > 0 {
		return fmt.Errorf("the simulator shows leaks or duplicates:\n- %s", strings.Join(problems, "\n- "))
	}
	return nil
}

// checkClean is expectClean as a TestCheckFunc.
func (e *simEnv) checkClean(wantClusters ...string) resource.TestCheckFunc {
	return func(*terraform.State) error { return e.expectClean(wantClusters...) }
}

// writeCalls are the CloudStack commands that change something.
var writeCalls = []string{"createKubernetesCluster", "deleteKubernetesCluster", "scaleKubernetesCluster", "startKubernetesCluster",
	"stopKubernetesCluster", "upgradeKubernetesCluster", "createFirewallRule", "deleteFirewallRule",
	"createPortForwardingRule", "deletePortForwardingRule"}

// lifecycleCalls start, stop or scale a cluster.
var lifecycleCalls = []string{"startKubernetesCluster", "stopKubernetesCluster", "scaleKubernetesCluster"}

// expectNoCalls fails when the simulator saw one of the commands since its
// counts were reset.
func (e *simEnv) expectNoCalls(commands ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		counts := e.Sim.CallCounts()
		for _, c := range commands {
			if counts[c] > 0 {
				return fmt.Errorf("%s was called %d time(s)", c, counts[c])
			}
		}
		return nil
	}
}

// expectOnlyCluster checks that the simulator has one live cluster, id.
func (e *simEnv) expectOnlyCluster(id string) error {
	var live []string
	for _, c := range e.Sim.DumpState().Clusters {
		if !c.Removed {
			live = append(live, c.ID)
		}
	}
	if len(live) != 1 || live[0] != id {
		return fmt.Errorf("the simulator has clusters %v, want only %s", live, id)
	}
	return nil
}

// A cluster after a step.

// clusterAt reads the cluster at addr in state from CloudStack, with its
// attributes in state.
func (e *simEnv) clusterAt(s *terraform.State, addr string) (*cloudstack.Cluster, map[string]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, nil, fmt.Errorf("%s is not in state", addr)
	}
	c, err := e.API.GetKubernetesCluster(context.Background(), rs.Primary.ID)
	return c, rs.Primary.Attributes, err
}

// checkCluster checks through the API that the cluster at addr is Running
// with the size, has exactly the firewall rules and a forward to the right
// VM per node, and that SSH works on every forwarded port.
func (e *simEnv) checkCluster(t *testing.T, addr string, size int64, firewalls []string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		c, _, err := e.clusterAt(s, addr)
		if err != nil {
			return err
		}
		if c.State != "Running" || c.Size != size {
			return fmt.Errorf("cluster is %s with size %d, want Running with size %d", c.State, c.Size, size)
		}
		return e.checkRulesAndSSH(t, c, firewalls)
	}
}

// checkRulesAndSSH checks the firewall rules, the forwards (2222 to a
// control VM, every other node one port of 2223.., every etcd VM one port
// of 50000.., whatever order the API lists the VM map in) and SSH on each
// forwarded port.
func (e *simEnv) checkRulesAndSSH(t *testing.T, c *cloudstack.Cluster, firewalls []string) error {
	got := e.rulesOf(t, c)
	if !slices.Equal(got.Firewalls, firewalls) {
		return fmt.Errorf("firewall rules = %v, want %v", got.Firewalls, firewalls)
	}
	if err := checkForwardTargets(c, got.Forwards); err != nil {
		return err
	}
	ports := slices.Sorted(maps.Keys(got.Forwards))
	e.expectSSH(t, c.IPAddress, ports...)
	return nil
}

// checkForwardTargets checks public port -> VM forwards against the VM map:
// 2222 reaches a control VM, each other control or worker VM has one port
// of the node range and each etcd VM one port of the etcd range.
func checkForwardTargets(c *cloudstack.Cluster, forwards map[int]string) error {
	var nodes, etcd []string
	controls := map[string]bool{}
	for _, vm := range c.VirtualMachines {
		switch {
		case vm.IsEtcdNode:
			etcd = append(etcd, vm.ID)
		default:
			nodes = append(nodes, vm.ID)
			if strings.Contains(vm.Name, "-control-") {
				controls[vm.ID] = true
			}
		}
	}
	if !controls[forwards[2222]] {
		return fmt.Errorf("forward 2222 goes to VM %q, which is not a control VM", forwards[2222])
	}
	for _, r := range []struct {
		from int
		vms  []string
	}{{2222, nodes}, {50000, etcd}} {
		var have []string
		for port := r.from; port < r.from+len(r.vms); port++ {
			have = append(have, forwards[port])
		}
		slices.Sort(have)
		if want := slices.Sorted(slices.Values(r.vms)); !slices.Equal(have, want) {
			return fmt.Errorf("forwards %d..%d reach %v, want each of %v once", r.from, r.from+len(r.vms)-1, have, want)
		}
	}
	if want := len(nodes) + len(etcd); len(forwards) != want {
		return fmt.Errorf("forwards (public port -> VM) = %v, want exactly %d", forwards, want)
	}
	return nil
}

// expectSSH checks that SSH as cloud works on every given port of ip: the
// session runs kubectl, which answers on the control node (2222) and is
// refused locally on the others.
func (e *simEnv) expectSSH(t *testing.T, ip string, ports ...int) {
	t.Helper()
	for _, port := range ports {
		addr := net.JoinHostPort(ip, fmt.Sprint(port))
		out, status, err := e.RunSSH(addr, nil, "sudo /opt/bin/kubectl get nodes -o name")
		switch {
		case err != nil:
			t.Errorf("SSH to %s: %v", addr, err)
		case port == 2222 && (status != 0 || !strings.Contains(out, "node/")):
			t.Errorf("SSH to the control node at %s: kubectl exited %d with %q", addr, status, out)
		case port != 2222 && status == 127:
			t.Errorf("SSH to %s: the session did not run kubectl: %q", addr, out)
		}
	}
}

// checkVPCPaths checks every path of the running cluster in state: SSH to
// each node through its forward on the cluster's VPC IP (the tier's network
// ACL lets it in), and CloudStack's own view of its SSH and API paths.
func (e *simEnv) checkVPCPaths(t *testing.T) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		id, err := clusterID(s)
		if err != nil {
			return err
		}
		c, err := e.API.GetKubernetesCluster(t.Context(), id)
		if err != nil {
			return err
		}
		if ssh, api, err := e.Sim.ClusterReachable(id); err != nil || !ssh || !api {
			return fmt.Errorf("CloudStack reaches cluster %s over SSH %t and its API %t (%v)", id, ssh, api, err)
		}
		var ports []int
		for _, pf := range e.Forwards(c) {
			if pf.PrivatePort == 22 {
				ports = append(ports, pf.PublicPort)
			}
		}
		if len(ports) != len(c.VirtualMachines) {
			return fmt.Errorf("%d SSH forwards for %d VMs", len(ports), len(c.VirtualMachines))
		}
		e.expectSSH(t, clusterview.EndpointHost(c), ports...)
		return nil
	}
}

// expectStateMatchesCloudStack checks that the state records what
// CloudStack reports of the cluster after an apply: size, state, version
// and the offering of each node type.
func (e *simEnv) expectStateMatchesCloudStack(addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		c, attrs, err := e.clusterAt(s, addr)
		if err != nil {
			return err
		}
		want := map[string]string{
			"size":                  fmt.Sprint(c.Size),
			"cloudstack_state":      c.State,
			"kubernetes_version_id": c.KubernetesVersionID,
			"service_offering_id":   c.ServiceOfferingID,
			"control_offering_id":   clusterops.NodeOffering(c, "control"),
			"worker_offering_id":    clusterops.NodeOffering(c, "worker"),
			"etcd_offering_id":      clusterops.NodeOffering(c, "etcd"),
		}
		for attr, v := range want {
			if got := attrs[attr]; got != v {
				return fmt.Errorf("%s: state has %q, CloudStack reports %q", attr, got, v)
			}
		}
		return nil
	}
}

// expectAPIRules checks the CIDR lists of the firewall rules on 6443 of the
// cluster *id, in any order.
func (e *simEnv) expectAPIRules(id *string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want := slices.Sorted(slices.Values(want))
		if got := e.apiRules(*id); !slices.Equal(got, want) {
			return fmt.Errorf("API firewall rules %v, want %v", got, want)
		}
		return nil
	}
}

// expectFirewalls checks the firewall rules of an IP.
func (e *simEnv) expectFirewalls(ipID string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want := slices.Sorted(slices.Values(want))
		if got := e.firewallsOn(ipID); !slices.Equal(got, want) {
			return fmt.Errorf("firewall rules on %s = %v, want %v", ipID, got, want)
		}
		return nil
	}
}

// expectSSHCIDRs checks that every SSH firewall rule of the cluster (node
// range, etcd range) has exactly the CIDRs, and that the API rule stays as
// CKS made it.
func (e *simEnv) expectSSHCIDRs(t *testing.T, id string, cidrs []string) error {
	t.Helper()
	fws := e.FirewallRulesOn(e.Cluster(id).IPAddressID)
	want := slices.Clone(cidrs)
	sort.Strings(want)
	ssh := 0
	for _, fw := range fws {
		got := slices.Clone(fw.CIDRList)
		sort.Strings(got)
		if fw.StartPort == 6443 {
			if !slices.Equal(got, []string{"0.0.0.0/0"}) {
				return fmt.Errorf("API rule has CIDRs %v, want CKS's 0.0.0.0/0", got)
			}
			continue
		}
		ssh++
		if !slices.Equal(got, want) {
			return fmt.Errorf("SSH firewall rule %d-%d has CIDRs %v, want %v", fw.StartPort, fw.EndPort, got, want)
		}
	}
	if ssh != 2 {
		return fmt.Errorf("%d SSH firewall rules, want the node range and the etcd range", ssh)
	}
	return nil
}

// expectDriftClean runs the drift check the data sources run, with the
// Kubernetes nodes read through the kubeconfig and the rules compared, and
// expects exactly the finding kinds wanted.
func (e *simEnv) expectDriftClean(c *cloudstack.Cluster, want ...string) error {
	checker := driftcheck.Checker{API: e.API}
	res, _, err := checker.Check(context.Background(), driftcheck.Request{ClusterID: c.ID, Options: driftcheck.Options{
		NodeSource: driftcheck.NodeSourceKubeconfig, CheckNetworkRules: true}})
	if err != nil {
		return fmt.Errorf("drift check: %w", err)
	}
	var kinds []string
	for _, f := range res.Findings {
		kinds = append(kinds, f.Kind)
	}
	slices.Sort(kinds)
	slices.Sort(want)
	if !slices.Equal(kinds, want) || len(res.Incomplete) > 0 {
		return fmt.Errorf("drift findings %v (incomplete %v), want %v: %+v", kinds, res.Incomplete, want, res.Findings)
	}
	return nil
}

// expectNodeVersions checks the version the VM map records for VMs.
func (e *simEnv) expectNodeVersions(id *string, want map[*string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, vm := range e.Cluster(*id).VirtualMachines {
			for vmID, v := range want {
				if vm.ID == *vmID && strings.TrimPrefix(vm.KubernetesNodeVersion, "v") != v {
					return fmt.Errorf("VM %s is on %s, want %s", vm.Name, vm.KubernetesNodeVersion, v)
				}
			}
		}
		return nil
	}
}

// externalCheck checks, after a step, through the API: the cluster Running
// with size workers CKS made and the external nodes, one node SSH range
// over every node, every forward to its VM and SSH on each, and a drift
// check (VM map, VMs, Kubernetes nodes through the kubeconfig, rules) with
// no finding but those wanted.
func (e *simEnv) externalCheck(t *testing.T, id *string, size int64, external []string, findings ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := e.Cluster(*id)
		got := c.ExternalNodes()
		if c.State != "Running" || c.ManagedWorkers() != size || got != int64(len(external)) {
			return fmt.Errorf("cluster is %s with %d workers and %d external nodes, want Running, %d and %d",
				c.State, c.ManagedWorkers(), got, size, len(external))
		}
		for _, x := range external {
			if _, ok := slices.BinarySearch(mapIDs(c), x); !ok {
				return fmt.Errorf("external node %s is not in the VM map", x)
			}
		}
		if err := e.checkRulesAndSSH(t, c, etcdFirewalls(int(size)+len(external), 3)); err != nil {
			return err
		}
		return e.expectDriftClean(c, findings...)
	}
}

// mapIDs are the ids of the VM map, sorted.
func mapIDs(c *cloudstack.Cluster) []string {
	var out []string
	for _, vm := range c.VirtualMachines {
		out = append(out, vm.ID)
	}
	slices.Sort(out)
	return out
}

// versionsNamed counts the simulator's versions of a name.
func (e *simEnv) versionsNamed(name string) (int, error) {
	versions, err := e.API.ListKubernetesSupportedVersions(e.T().Context(), "")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range versions {
		if v.Name == name {
			n++
		}
	}
	return n, nil
}

func (e *simEnv) expectVersionsNamed(name string, want int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		n, err := e.versionsNamed(name)
		if err == nil && n != want {
			err = fmt.Errorf("%d versions named %s, want %d", n, name, want)
		}
		return err
	}
}

// expectVersionState checks a version's state in the simulator.
func (e *simEnv) expectVersionState(id, want string) error {
	v, err := e.API.GetKubernetesSupportedVersion(e.T().Context(), id)
	if err != nil {
		return err
	}
	if v.State != want {
		return fmt.Errorf("version %s is %s, want %s", id, v.State, want)
	}
	return nil
}

// expectNoVersion checks that no version of these semantic versions is
// left in the simulator.
func (e *simEnv) expectNoVersion(semvers ...string) error {
	versions, err := e.API.ListKubernetesSupportedVersions(e.T().Context(), "")
	if err != nil {
		return err
	}
	for _, v := range versions {
		for _, s := range semvers {
			if v.SemanticVersion == s {
				return fmt.Errorf("version %s (%s) is still registered", v.Name, v.ID)
			}
		}
	}
	return nil
}
