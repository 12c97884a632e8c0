package provider

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// The cluster configuration of the acceptance tests: one builder writes
// every cks_cluster a test applies, from the minimal cluster (name, zone,
// service offering, Kubernetes version 1.33.13, one worker) and what the
// test changes of it.

// defaultTestVersion is the Kubernetes version of the minimal cluster.
const defaultTestVersion = "1.33.13"

// hcl is an HCL expression written as it is (a reference, an object).
type hcl string

// clusterAttr is one attribute line of the resource.
type clusterAttr struct{ name, value string }

// clusterConfig is a configuration with one cks_cluster. Its methods return
// a changed copy, so that one base serves several steps.
type clusterConfig struct {
	provider string
	address  string
	attrs    []clusterAttr
	blocks   []string
	info     simulator.Info
}

// cluster is the minimal cluster named name, cks_cluster.test, on the
// simulator.
func (e *simEnv) cluster(name string) clusterConfig {
	return minimalCluster(e.ProviderConfig(), e.Info, name)
}

// etcdCluster is the cluster of apache/cloudstack#14159: one control node,
// etcd separate etcd nodes, size workers and the seeded key pair.
func (e *simEnv) etcdCluster(etcd, size int) clusterConfig {
	return e.cluster("cks-etcd-minimal").etcd(etcd).size(size).keypair()
}

// minimalCluster is the minimal cluster on the simulator info describes,
// with the provider block given.
func minimalCluster(provider string, info simulator.Info, name string) clusterConfig {
	c := newClusterConfig(provider, name, info.ZoneID, info.ServiceOfferingID, info.KubernetesVersions[defaultTestVersion])
	c.info = info
	return c
}

// newClusterConfig is the minimal cluster, cks_cluster.test, on any
// CloudStack: the ids of its zone, service offering and Kubernetes version.
func newClusterConfig(provider, name, zoneID, offeringID, versionID string) clusterConfig {
	return clusterConfig{provider: provider, address: "test"}.
		set("name", name).
		set("zone_id", zoneID).
		set("service_offering_id", offeringID).
		set("kubernetes_version_id", versionID).
		set("size", 1)
}

// set gives an attribute a value: a string, a number, a bool, a list of
// strings, a map of strings, or an hcl expression. An attribute set before
// keeps its place.
func (c clusterConfig) set(name string, value any) clusterConfig {
	c.attrs = slices.Clone(c.attrs)
	line := clusterAttr{name, hclValue(value)}
	if i := slices.IndexFunc(c.attrs, func(a clusterAttr) bool { return a.name == name }); i >= 0 {
		c.attrs[i] = line
		return c
	}
	c.attrs = append(c.attrs, line)
	return c
}

// unset leaves attributes out.
func (c clusterConfig) unset(names ...string) clusterConfig {
	c.attrs = slices.DeleteFunc(slices.Clone(c.attrs), func(a clusterAttr) bool { return slices.Contains(names, a.name) })
	return c
}

// size sets the workers.
func (c clusterConfig) size(n int) clusterConfig { return c.set("size", n) }

// etcd sets the separate etcd nodes.
func (c clusterConfig) etcd(n int) clusterConfig { return c.set("etcd_nodes", n) }

// version sets a seeded Kubernetes version, such as "1.32.9".
func (c clusterConfig) version(semver string) clusterConfig {
	id, ok := c.info.KubernetesVersions[semver]
	if !ok {
		panic(fmt.Sprintf("the simulator has no Kubernetes version %s", semver))
	}
	return c.set("kubernetes_version_id", id)
}

// autoscaled turns the autoscaler on, from one worker to maxSize, which
// owns the size then.
func (c clusterConfig) autoscaled(maxSize int) clusterConfig {
	return c.unset("size").set("autoscaling", hcl(fmt.Sprintf("{ enabled = true, min_size = 1, max_size = %d }", maxSize)))
}

// keypair authorises the simulator's key pair on the nodes.
func (c clusterConfig) keypair() clusterConfig { return c.set("keypair", c.info.Keypair) }

// on puts the cluster on a network.
func (c clusterConfig) on(networkID string) clusterConfig { return c.set("network_id", networkID) }

// named renames the resource: cks_cluster.<address>.
func (c clusterConfig) named(address string) clusterConfig {
	c.address = address
	return c
}

// through replaces the provider block (a proxy, other settings; "" for the
// configuration of a test that adds its own).
func (c clusterConfig) through(provider string) clusterConfig {
	c.provider = provider
	return c
}

// via makes the resource use the provider of a profile's simulator;
// profileProviders writes the blocks once for all resources.
func (c clusterConfig) via(p profileEnv) clusterConfig {
	return c.through("").set("provider", hcl(p.provider))
}

// with adds HCL after the resource: data sources, other resources,
// import and moved blocks.
func (c clusterConfig) with(blocks ...string) clusterConfig {
	c.blocks = append(slices.Clone(c.blocks), blocks...)
	return c
}

// String is the configuration.
func (c clusterConfig) String() string {
	var b strings.Builder
	b.WriteString(c.provider)
	fmt.Fprintf(&b, "\nresource \"cks_cluster\" %q {\n", c.address)
	for _, a := range c.attrs {
		fmt.Fprintf(&b, "  %s = %s\n", a.name, a.value)
	}
	b.WriteString("}\n")
	for _, block := range c.blocks {
		b.WriteString(block)
	}
	return b.String()
}

// hclValue writes a Go value as HCL.
func hclValue(v any) string {
	switch v := v.(type) {
	case hcl:
		return string(v)
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		quoted := make([]string, 0, len(v))
		for _, s := range v {
			quoted = append(quoted, fmt.Sprintf("%q", s))
		}
		return "[" + strings.Join(quoted, ", ") + "]"
	case map[string]string:
		pairs := make([]string, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			pairs = append(pairs, fmt.Sprintf("%q = %q", k, v[k]))
		}
		return "{ " + strings.Join(pairs, ", ") + " }"
	default:
		return fmt.Sprint(v)
	}
}

// The drift data sources.

// sshHCL is the ssh attribute with the simulator's key pair and the pinned host key.
func (e *simEnv) sshHCL(clusterID string) string {
	return fmt.Sprintf("  ssh = {\n    private_key = file(%q)\n    host_key    = %q\n  }\n", e.KeyFile, e.HostKeyLine(clusterID))
}

// driftHCL is the provider plus data.cks_cluster_drift.test on a cluster.
func (e *simEnv) driftHCL(clusterID, body string) string {
	return e.ProviderConfig(fmt.Sprintf("\ndata \"cks_cluster_drift\" \"test\" {\n  cluster_id = %q\n%s}\n", clusterID, body))
}

// driftGateHCL is the single-cluster gate without rule checks (the faults
// below delete rules, which is drift of its own).
func (e *simEnv) driftGateHCL(clusterID, body string) string {
	return e.driftHCL(clusterID, body+"  fail_on_drift = true\n  check_network_rules = false\n")
}

// fleetHCL is the provider plus data.cks_clusters_drift.test.
func (e *simEnv) fleetHCL(body string) string {
	return e.ProviderConfig(fmt.Sprintf("\ndata \"cks_clusters_drift\" \"test\" {\n%s}\n", body))
}

// knownHostsFor lists the control-node host key of every cluster, as a
// fleet check needs.
func (e *simEnv) knownHostsFor(clusters ...string) string {
	var lines string
	for _, id := range clusters {
		lines += fmt.Sprintf("[%s]:2222 %s\n", e.Cluster(id).IPAddress, e.HostKeyLine(id))
	}
	return lines
}
