package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// The acceptance harness: every acceptance test runs the real Terraform CLI
// (through terraform-plugin-testing) against its own in-process CloudStack
// simulator, so tests are hermetic and can run in parallel. The harness is
// the acctest_*_test.go files: the simulator environment (this file, what
// it reads and what it changes as another client would), what a test
// expects of it (acctest_expect_test.go), the cluster configuration
// (acctest_config_test.go) and the fault proxy (acctest_fault_proxy_test.go).
// TestHarnessIsInOnePlace keeps simEnv's methods here.

// simEnv is one running simulator, a client of its admin account and the
// seeded key pair's private key file (simtest.Env).
type simEnv struct{ *simtest.Env }

// newSimEnv starts a simulator on a free loopback port and closes it when the
// test ends. Sim-only tests need its admin API, so they cannot run against a
// real CloudStack (make testacc-real); there they are skipped with the reason.
func newSimEnv(t *testing.T, opts ...simtest.Option) *simEnv {
	t.Helper()
	if os.Getenv("CKS_ACC_TARGET") == "real" {
		t.Skip("this test drives the embedded simulator's admin API; it does not run against a real CloudStack")
	}
	return &simEnv{simtest.Start(t, opts...)}
}

// profileEnv is the simulator of one server profile in a test that gives
// each profile a simulator and writes one configuration for all of them.
// The profile's resources name their provider by a local name of its own,
// cks-<profile>, which serves the same resource types as cks: with
// in-process providers every alias of one name shares a provider instance,
// and so its configuration, while each name has its own. One CLI run a step
// serves every profile.
type profileEnv struct {
	*simEnv
	// provider is the local name; label names the profile's resources.
	profile, provider, label string
}

// newProfileEnvs starts a simulator of each server profile.
func newProfileEnvs(t *testing.T) []profileEnv {
	t.Helper()
	var out []profileEnv
	for _, profile := range simulator.Profiles() {
		env := newSimEnv(t, simtest.WithProfile(profile))
		out = append(out, profileEnv{simEnv: env, profile: profile, provider: "cks-" + strings.ReplaceAll(profile, ".", "-"),
			label: "profile_" + strings.ReplaceAll(profile, ".", "_")})
	}
	return out
}

// profileProviders are the provider blocks of every profile's simulator.
func profileProviders(envs []profileEnv) string {
	var b strings.Builder
	for _, p := range envs {
		b.WriteString(p.providerBlock(p.provider, p.Info.APIURL))
	}
	return b.String()
}

// profileTestCase is an acceptance test case over every profile's
// simulator: the provider factories of their local names beside cks.
func profileTestCase(envs []profileEnv, tc resource.TestCase) resource.TestCase {
	factories := maps.Clone(testAccProtoV6ProviderFactories)
	for _, p := range envs {
		factories[p.provider] = providerserver.NewProtocol6WithError(New("test")())
	}
	tc.ProtoV6ProviderFactories = factories
	return tc
}

// expectNothingLeftOn is expectNothingLeft on every profile's simulator.
func expectNothingLeftOn(envs []profileEnv) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, p := range envs {
			if err := p.expectNothingLeft(s); err != nil {
				return fmt.Errorf("%s: %w", p.profile, err)
			}
		}
		return nil
	}
}

// newDriftEnv is newSimEnv whose clusters are driftClusterAge old, past
// the grace period of a drift check.
func newDriftEnv(t *testing.T, opts ...simtest.Option) *simEnv {
	t.Helper()
	return newSimEnv(t, append([]simtest.Option{simtest.WithClusterAge(driftClusterAge)}, opts...)...)
}

// accTest runs an acceptance test case. Against the simulator it needs no
// TF_ACC opt-in: it is hermetic and always runs, so nothing hides behind a skip.
func accTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	if tc.ProtoV6ProviderFactories == nil && tc.ProviderFactories == nil && tc.ProtoV5ProviderFactories == nil {
		tc.ProtoV6ProviderFactories = testAccProtoV6ProviderFactories
	}
	resource.UnitTest(t, tc)
}

// ProviderConfig is a provider block pointing at the simulator, followed by
// extra HCL.
func (e *simEnv) ProviderConfig(extra ...string) string {
	return e.providerAt(e.Info.APIURL) + strings.Join(extra, "")
}

// providerAt is a provider block with the simulator's keys for api_url (a
// proxy, for instance) and more settings, one a line.
func (e *simEnv) providerAt(apiURL string, settings ...string) string {
	return e.providerBlock("cks", apiURL, settings...)
}

// providerBlock is providerAt for the provider of a local name.
func (e *simEnv) providerBlock(name, apiURL string, settings ...string) string {
	var more string
	for _, s := range settings {
		more += "  " + s + "\n"
	}
	return fmt.Sprintf(`
provider %q {
  api_url    = %q
  api_key    = %q
  secret_key = %q
%s}
`, name, apiURL, e.Info.APIKey, e.Info.SecretKey, more)
}

// Reading the simulator.

// liveCluster is a cluster that is not removed: its id, name and the
// address of its endpoint.
type liveCluster struct {
	ID, Name, IP string
}

// liveClusters are the clusters that are not removed.
func (e *simEnv) liveClusters() []liveCluster {
	var out []liveCluster
	for _, c := range e.Sim.DumpState().Clusters {
		if c.Removed {
			continue
		}
		ip := strings.TrimSuffix(strings.TrimPrefix(c.Endpoint, "https://"), ":6443/")
		out = append(out, liveCluster{ID: c.ID, Name: c.Name, IP: ip})
	}
	return out
}

// liveIDs are the ids of the live clusters named name.
func (e *simEnv) liveIDs(name string) []string {
	var out []string
	for _, c := range e.Sim.DumpState().Clusters {
		if !c.Removed && c.Name == name {
			out = append(out, c.ID)
		}
	}
	return out
}

// clusterNamed returns the live cluster of that name.
func (e *simEnv) clusterNamed(t *testing.T, name string) *cloudstack.Cluster {
	t.Helper()
	list, err := e.API.ListKubernetesClusters(t.Context(), cloudstack.ListClustersParams{Name: name, ListAll: true})
	if err != nil || len(list) != 1 {
		t.Fatalf("cluster %s: %v, %v", name, list, err)
	}
	return &list[0]
}

// publicIPOf returns the id of the allocated public IP with the address.
func (e *simEnv) publicIPOf(t *testing.T, address string) string {
	t.Helper()
	ips, err := e.API.ListPublicIPAddresses(t.Context(), cloudstack.ListPublicIPParams{IPAddress: address, ListAll: true})
	if err != nil || len(ips) != 1 {
		t.Fatalf("public IP %s: %v, %v", address, ips, err)
	}
	return ips[0].ID
}

// userNetworkIP is the source NAT address of the seeded isolated network.
func (e *simEnv) userNetworkIP(t *testing.T) cloudstack.PublicIPAddress {
	t.Helper()
	yes := true
	ips, err := e.API.ListPublicIPAddresses(context.Background(), cloudstack.ListPublicIPParams{
		AssociatedNetworkID: e.Info.IsolatedNetworkID, IsSourceNat: &yes, ListAll: true})
	if err != nil || len(ips) != 1 {
		t.Fatalf("the isolated network's source NAT IP: %v %v", ips, err)
	}
	return ips[0]
}

// ruleSet is what the API lists on the cluster's IP: firewall ranges and
// forwards with their target VMs.
type ruleSet struct {
	Firewalls []string
	Forwards  map[int]string // public port -> VM id
}

// rulesOf reads the rules on the cluster's IP; a forward to another port
// than 22 fails the test.
func (e *simEnv) rulesOf(t *testing.T, c *cloudstack.Cluster) ruleSet {
	t.Helper()
	fws, pfs := e.FirewallRulesOn(c.IPAddressID), e.ForwardsOn(c.IPAddressID)
	rs := ruleSet{Forwards: map[int]string{}}
	for _, fw := range fws {
		if fw.StartPort == fw.EndPort {
			rs.Firewalls = append(rs.Firewalls, fmt.Sprint(fw.StartPort))
		} else {
			rs.Firewalls = append(rs.Firewalls, fmt.Sprintf("%d-%d", fw.StartPort, fw.EndPort))
		}
	}
	sort.Strings(rs.Firewalls)
	for _, pf := range pfs {
		if pf.PrivatePort != 22 {
			t.Errorf("forward %d goes to private port %d, want 22", pf.PublicPort, pf.PrivatePort)
		}
		rs.Forwards[pf.PublicPort] = pf.VirtualMachineID
	}
	return rs
}

// apiRules are the CIDR lists of the firewall rules on 6443 of the
// cluster's IP, sorted: the list order is the server's.
func (e *simEnv) apiRules(id string) []string {
	var out []string
	for _, fw := range e.FirewallRulesOn(e.Cluster(id).IPAddressID) {
		if fw.StartPort == 6443 {
			out = append(out, fmt.Sprint(fw.CIDRList))
		}
	}
	slices.Sort(out)
	return out
}

// firewallsOn lists the firewall rules of an IP as sorted "start-end cidrs".
func (e *simEnv) firewallsOn(ipID string) []string {
	var out []string
	for _, fw := range e.FirewallRulesOn(ipID) {
		out = append(out, fmt.Sprintf("%d-%d %s", fw.StartPort, fw.EndPort, strings.Join(fw.CIDRList, ",")))
	}
	slices.Sort(out)
	return out
}

// clusterRuleSignatures lists the rules on the public IP of the cluster in
// state, from the simulator's dump, without ids and sorted, so that a rule
// re-created alike compares equal.
func (e *simEnv) clusterRuleSignatures(s *terraform.State) ([]string, error) {
	id, err := clusterID(s)
	if err != nil {
		return nil, err
	}
	ipID := s.RootModule().Resources[clusterAddr].Primary.Attributes["ip_address_id"]
	if ipID == "" {
		return nil, fmt.Errorf("cluster %s has no ip_address_id in state", id)
	}
	d := e.Sim.DumpState()
	var out []string
	for _, r := range d.Rules {
		if r.IPAddressID != ipID {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %s %d-%d -> %s %d-%d %v", r.Purpose, r.State, r.Protocol, r.StartPort, r.EndPort,
			r.VMID, r.PrivatePort, r.PrivateEnd, r.CIDRs))
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("no rules on the public IP of cluster %s", id)
	}
	return out, nil
}

// aclSignatures lists the items of the seeded VPC's network ACL list,
// without ids and numbers, sorted.
func (e *simEnv) aclSignatures() []string {
	var out []string
	for _, it := range e.Sim.DumpState().ACLItems {
		if it.ACLID == e.Info.VPCACLID {
			out = append(out, fmt.Sprintf("%s %d-%d %s %s %v", it.Protocol, it.StartPort, it.EndPort, it.TrafficType, it.Action, it.CIDRs))
		}
	}
	slices.Sort(out)
	return out
}

// Changing the simulator as another client would.

// createOutOfBand creates a cluster named name with size workers through
// the API, as somebody else (or a lost create) would, and waits for it:
// one control node, the seeded zone, offering and version 1.33.13, no key
// pair. It may run outside the test's goroutine (in the fault proxy), so a
// failure does not stop the test.
func (e *simEnv) createOutOfBand(t *testing.T, name string, size int64) string {
	t.Helper()
	ctx := context.Background()
	ref, err := e.API.CreateKubernetesCluster(ctx, cloudstack.CreateClusterParams{Name: name, ZoneID: e.Info.ZoneID,
		KubernetesVersionID: e.VersionID(defaultTestVersion), ServiceOfferingID: e.Info.ServiceOfferingID, ControlNodes: 1, Size: size})
	if err == nil {
		err = e.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Errorf("creating cluster %s out of band: %v", name, err)
	}
	return ref.ID
}

// createEtcdClusterOutOfBand creates, through the plain API, a cluster with
// one control node, three etcd nodes and one worker: CKS's own rule layout.
func (e *simEnv) createEtcdClusterOutOfBand() string {
	return e.NewCluster(cloudstack.CreateClusterParams{Name: "cks-etcd-minimal", Description: "cks-etcd-minimal", EtcdNodes: 3,
		Size: 1}).ID
}

// scaleOutOfBand changes the cluster's size through the plain API, as the
// UI, cmk or an operator would, and requires success.
func (e *simEnv) scaleOutOfBand(t *testing.T, id string, size int64) {
	t.Helper()
	if err := e.Scale(id, size); err != nil {
		t.Fatalf("scale to %d by another client: %v", size, err)
	}
}

// scaleOutOfBandNamingOfferings is scaleOutOfBand with every node type's
// current offering in nodeofferings, as the UI does.
func (e *simEnv) scaleOutOfBandNamingOfferings(t *testing.T, id string, size int64) {
	t.Helper()
	c := e.Cluster(id)
	offerings := map[string]string{}
	for _, role := range []string{"control", "worker", "etcd"} {
		offerings[role] = clusterops.NodeOffering(c, role)
	}
	if err := e.ScaleWith(cloudstack.ScaleClusterParams{ID: id, Size: &size, NodeOfferings: offerings}); err != nil {
		t.Fatalf("scale to %d by another client: %v", size, err)
	}
}

// autoscalerScales changes the size of a cluster whose autoscaler is on
// (min 1, max 3), as the autoscaler would: it is switched off for the
// scale and back on after it.
func (e *simEnv) autoscalerScales(t *testing.T, id string, size int64) {
	t.Helper()
	off, on := false, true
	minSize, maxSize := int64(1), int64(3)
	for _, p := range []cloudstack.ScaleClusterParams{
		{ID: id, AutoscalingEnabled: &off},
		{ID: id, Size: &size},
		{ID: id, AutoscalingEnabled: &on, MinSize: &minSize, MaxSize: &maxSize},
	} {
		if err := e.ScaleWith(p); err != nil {
			t.Fatalf("the autoscaler's scale to %d: %v", size, err)
		}
	}
}

// breakByEtcdRulePick scales a cluster in CKS's layout to 2 and then to 1
// through the plain API on 4.22.1.1 (apache/cloudstack#14159): the second
// scale revokes an etcd rule instead of the node range, fails with 530 and
// leaves the cluster in Alert with size 2 and one worker.
func (e *simEnv) breakByEtcdRulePick(t *testing.T, id string) {
	t.Helper()
	e.scaleOutOfBand(t, id, 2)
	if err := e.Scale(id, 1); err == nil || !strings.Contains(err.Error(), "unable to update network rules") {
		t.Fatalf("the scale to 1 = %v; the 4.22.1.1 profile should reproduce #14159", err)
	}
	c, err := e.API.GetKubernetesCluster(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if c.State != "Alert" || c.Size != 2 || len(c.VirtualMachines) != 5 {
		t.Fatalf("broken cluster is %s, size %d, %d VMs; want Alert, size 2, 5 VMs", c.State, c.Size, len(c.VirtualMachines))
	}
}

// addFirewall creates a user TCP firewall rule on an IP and returns its id.
func (e *simEnv) addFirewall(t *testing.T, ipID string, start, end int, cidrs ...string) string {
	t.Helper()
	ref, err := e.API.CreateFirewallRule(context.Background(), cloudstack.CreateFirewallRuleParams{IPAddressID: ipID,
		Protocol: "tcp", StartPort: start, EndPort: end, CIDRList: cidrs})
	if err == nil {
		err = e.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatalf("creating firewall rule %d-%d: %v", start, end, err)
	}
	return ref.ID
}

// addUserSSHRules creates, as a user would, a firewall rule 22-22 and a
// forward 22 -> 22 to the control VM on the cluster's IP. Once the node SSH
// range is re-created by a scale, the #14159 predicate picks this firewall
// rule first.
func (e *simEnv) addUserSSHRules(t *testing.T, id string) {
	t.Helper()
	c := e.Cluster(id)
	var control string
	for _, vm := range c.VirtualMachines {
		if !vm.IsEtcdNode && control == "" {
			control = vm.ID
		}
	}
	e.addFirewall(t, c.IPAddressID, 22, 22, "203.0.113.0/24")
	ref, err := e.API.CreatePortForwardingRule(context.Background(), cloudstack.CreatePortForwardingRuleParams{IPAddressID: c.IPAddressID,
		Protocol: "tcp", PublicPort: 22, PublicEndPort: 22, PrivatePort: 22, PrivateEndPort: 22,
		VirtualMachineID: control, NetworkID: c.NetworkID})
	if err == nil {
		err = e.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatalf("creating the user forward: %v", err)
	}
}

// deleteClusterRules deletes every rule of the dump that match selects, as a
// user outside CKS would, and fails unless it deleted want.
func (e *simEnv) deleteClusterRules(t *testing.T, match func(simulator.DumpRule) bool, want int) {
	t.Helper()
	deleted := 0
	for _, r := range e.Sim.DumpState().Rules {
		if !match(r) {
			continue
		}
		if err := e.Sim.DeleteRule(r.ID); err != nil {
			t.Fatal(err)
		}
		deleted++
	}
	if deleted != want {
		t.Fatalf("deleted %d rules, want %d", deleted, want)
	}
}

// versionHCL is a cks_kubernetes_version named label for the simulator's
// zone.
func (e *simEnv) versionHCL(label, semver, url, extra string) string {
	return fmt.Sprintf(`
resource "cks_kubernetes_version" %q {
  semantic_version = %q
  url              = %q
  zone_id          = %q
  min_cpu_number   = 2
  min_memory       = 2048
%s
}
`, label, semver, url, e.Info.ZoneID, extra)
}
