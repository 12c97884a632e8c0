package simulator

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// The write ledger (FIDELITY.md, "Write ledger") lists, for each operation a
// client starts or observes, every field of the cluster, VM map, VM and rule
// rows it writes. TestWriteLedger runs each operation and compares what the
// API reports before and after it: every ledger row must be written with its
// value, and nothing else may change. A write the simulator lacks, or one
// the ledger does not list, fails the test. TestWriteLedgerMatchesFidelity
// keeps FIDELITY.md's rows and these scenarios the same.

// ledgerView is what a client can read of a cluster: the scalar fields of
// listKubernetesClusters, its VMs' fields, the rules on its network, and the
// states the cluster row took (the dump's state history).
type ledgerView struct {
	cluster map[string]string // nil when the cluster is not listed
	vms     map[string]map[string]string
	rules   map[string]string // purpose -> sorted rule descriptions
	// acl describes the items of the network's ACL list; ip is the state
	// of the cluster's own public IP (VPC tiers), "" when it has none.
	acl, ip string
	states  []string
	// catalog holds the rows of a Kubernetes version, its ISO or a CNI
	// configuration by ledger key (ledger_catalog_test.go).
	catalog map[string]string
}

// ledgerVMFields are the fields of a cluster VM the ledger follows.
var ledgerVMFields = []string{"serviceofferingid", "state", "kubernetesnodeversion", "templateid", "isetcdnode", "isexternalnode"}

func (e *testEnv) ledgerView(id string) ledgerView {
	e.t.Helper()
	v := ledgerView{vms: map[string]map[string]string{}, rules: map[string]string{}}
	if id == "" {
		return v
	}
	if kind, catalogID, ok := strings.Cut(id, ":"); ok {
		v.catalog = e.catalogView(kind, catalogID)
		return v
	}
	_, body := e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	list, _ := inner(e.t, body, "listkubernetesclustersresponse")["kubernetescluster"].([]any)
	var networkID string
	if len(list) == 1 {
		raw := asObj(e.t, list[0])
		v.cluster = map[string]string{}
		for k, val := range raw {
			switch k {
			case "virtualmachines":
				for _, vm := range asList(e.t, val) {
					o := asObj(e.t, vm)
					fields := map[string]string{}
					for _, f := range ledgerVMFields {
						if fv, ok := o[f]; ok {
							fields[f] = fmt.Sprint(fv)
						}
					}
					v.vms[asStr(e.t, o["id"])] = fields
				}
			case "state": // followed through the state history
			default:
				b, _ := json.Marshal(val)
				v.cluster[k] = strings.Trim(string(b), `"`)
			}
		}
		networkID = v.cluster["networkid"]
	}
	d := e.sim.DumpState()
	var publicIPID string
	for _, c := range d.Clusters {
		if c.ID == id {
			v.states = c.StateHistory
			networkID = cmp.Or(networkID, c.NetworkID)
			publicIPID = c.PublicIPID
		}
	}
	v.acl, v.ip = ledgerACLAndIP(d, networkID, publicIPID, e.defaultACLIDs())
	byPurpose := map[string][]string{}
	for _, r := range d.Rules {
		if r.NetworkID == networkID && networkID != "" {
			byPurpose[r.Purpose] = append(byPurpose[r.Purpose], fmt.Sprintf("#%d %s %d-%d %v", r.InternalID, r.Protocol,
				r.StartPort, r.EndPort, r.CIDRs))
		}
	}
	for purpose, rs := range byPurpose {
		slices.Sort(rs)
		v.rules[purpose] = strings.Join(rs, "; ")
	}
	return v
}

// ledgerACLAndIP describes the items of the network's ACL list and the
// state of the cluster's own public IP.
// The default lists, whose items never change, are left out.
func ledgerACLAndIP(d DumpState, networkID, publicIPID string, defaults []string) (acl, ip string) {
	var aclID string
	for _, n := range d.Networks {
		if n.ID == networkID && !slices.Contains(defaults, n.ACLID) {
			aclID = n.ACLID
		}
	}
	var items []string
	for _, it := range d.ACLItems {
		if aclID != "" && it.ACLID == aclID {
			items = append(items, fmt.Sprintf("#%d n%d %s %d-%d %s %s %v", it.InternalID, it.Number, it.Protocol, it.StartPort,
				it.EndPort, it.TrafficType, it.Action, it.CIDRs))
		}
	}
	slices.Sort(items)
	for _, p := range d.PublicIPs {
		if publicIPID != "" && p.ID == publicIPID {
			ip = map[bool]string{true: "released", false: "allocated"}[p.Released]
		}
	}
	return strings.Join(items, "; "), ip
}

// defaultACLIDs returns the ids of the default network ACL lists.
func (e *testEnv) defaultACLIDs() []string {
	e.sim.rt.Lock()
	defer e.sim.rt.Unlock()
	var out []string
	for _, acl := range e.sim.rt.DB.ACLs {
		if acl.IsDefault() {
			out = append(out, acl.ID)
		}
	}
	return out
}

// ledgerChange is one write as the diff of two views.
type ledgerChange struct {
	before, after string
	// present: the field exists after the operation.
	present bool
}

// diff lists what changed between two views, by ledger key: cluster.<field>,
// vm.added, vm.removed, vm.<field>, rules.<purpose>, state (the states the
// cluster took during the operation, joined with ">").
func diffViews(before, after ledgerView) map[string]ledgerChange {
	out := map[string]ledgerChange{}
	for _, k := range sortedUnion(before.cluster, after.cluster) {
		b, inB := before.cluster[k]
		a, inA := after.cluster[k]
		if inB != inA || a != b {
			out["cluster."+k] = ledgerChange{before: b, after: a, present: inA}
		}
	}
	var added, removed []string
	for id, a := range after.vms {
		b, ok := before.vms[id]
		if !ok {
			added = append(added, id)
			continue
		}
		for _, f := range ledgerVMFields {
			if a[f] != b[f] {
				key := "vm." + f
				c := out[key]
				c.before = strings.TrimPrefix(c.before+", "+b[f], ", ")
				c.after = strings.TrimPrefix(c.after+", "+a[f], ", ")
				c.present = true
				out[key] = c
			}
		}
	}
	for id := range before.vms {
		if _, ok := after.vms[id]; !ok {
			removed = append(removed, id)
		}
	}
	if len(added) > 0 {
		out["vm.added"] = ledgerChange{after: strconv.Itoa(len(added)), present: true}
	}
	if len(removed) > 0 {
		out["vm.removed"] = ledgerChange{after: strconv.Itoa(len(removed)), present: true}
	}
	for _, purpose := range sortedUnion(before.rules, after.rules) {
		if before.rules[purpose] != after.rules[purpose] {
			out["rules."+purpose] = ledgerChange{before: before.rules[purpose], after: after.rules[purpose], present: after.rules[purpose] != ""}
		}
	}
	if before.acl != after.acl {
		out["acl.items"] = ledgerChange{before: before.acl, after: after.acl, present: after.acl != ""}
	}
	if before.ip != after.ip {
		out["ip.state"] = ledgerChange{before: before.ip, after: after.ip, present: after.ip != ""}
	}
	for _, k := range sortedUnion(before.catalog, after.catalog) {
		b, inB := before.catalog[k]
		a, inA := after.catalog[k]
		if inB != inA || a != b {
			out[k] = ledgerChange{before: b, after: a, present: inA}
		}
	}
	if len(after.states) > len(before.states) {
		from := max(len(before.states)-1, 0)
		out["state"] = ledgerChange{after: strings.Join(after.states[from:], ">"), present: true}
	}
	return out
}

func sortedUnion(a, b map[string]string) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return slices.Sorted(maps.Keys(keys))
}

// ledgerCheck judges a written value.
type ledgerCheck func(c ledgerChange) error

func is(want string) ledgerCheck {
	return func(c ledgerChange) error {
		if !c.present || c.after != want {
			return fmt.Errorf("wrote %q (present %t), want %q", c.after, c.present, want)
		}
		return nil
	}
}

// written accepts any value that is present.
func written(c ledgerChange) error {
	if !c.present {
		return fmt.Errorf("removed (was %q), want a value", c.before)
	}
	return nil
}

// cleared: the field is no longer reported.
func cleared(c ledgerChange) error {
	if c.present {
		return fmt.Errorf("wrote %q, want it gone", c.after)
	}
	return nil
}

func states(path ...string) ledgerCheck { return is(strings.Join(path, ">")) }

// ledgerScenario runs one operation of an op of the ledger.
type ledgerScenario struct {
	op, name string
	opts     Options
	// setup prepares the cluster and returns its id ("" for a create).
	setup func(e *testEnv) string
	// run performs the operation and returns the cluster's id.
	run    func(e *testEnv, id string) string
	writes func(e *testEnv, id string) map[string]ledgerCheck
}

// clusterCreatedFields are the fields createKubernetesCluster and its start
// job write for every cluster on an isolated network of its own.
var clusterCreatedFields = strings.Fields(`id name description zoneid zonename templateid templatename networkid
	associatednetworkname kubernetesversionid kubernetesversionname masternodes controlnodes size etcdnodes
	cpunumber memory endpoint autoscalingenabled csienabled clustertype created hasannotations serviceofferingid
	serviceofferingname keypair account domainid domain domainpath ipaddress ipaddressid`)

func createdWrites(e *testEnv, etcd bool) map[string]ledgerCheck {
	w := map[string]ledgerCheck{
		"state":                states(model.ClusterCreated, model.ClusterStarting, model.ClusterRunning),
		"vm.added":             written,
		"rules.Firewall":       written,
		"rules.PortForwarding": written,
		"rules.LoadBalancing":  written,
	}
	for _, f := range clusterCreatedFields {
		w["cluster."+f] = written
	}
	w["cluster.description"] = is("ledger")
	w["cluster.serviceofferingid"] = is(e.info.ServiceOfferingID)
	if etcd {
		w["cluster.etcdips"] = written
	}
	return w
}

func (e *testEnv) ledgerCluster(size, etcd int64, set func(p *cloudstack.CreateKubernetesClusterParams)) string {
	p := e.createParams("ledger", size)
	p.SetDescription("")
	if etcd > 0 {
		p.SetEtcdnodes(etcd)
	}
	if set != nil {
		set(p)
	}
	return e.createCluster(p)
}

func (e *testEnv) offeringOf(id string) (cpu, memory int) {
	e.sim.rt.Lock()
	defer e.sim.rt.Unlock()
	o := e.sim.rt.DB.Offering(id)
	if o == nil {
		e.t.Fatalf("no offering %s", id)
	}
	return o.CPU, o.Memory
}

// capacity is the cluster's cpunumber and memory after adding n VMs of the
// offering.
func (e *testEnv) capacityPlus(id string, n int, offering string) (string, string) {
	cl := e.cluster(id)
	cpu, mem := e.offeringOf(offering)
	cores, _ := strconv.Atoi(cl.Cpunumber)
	memory, _ := strconv.Atoi(cl.Memory)
	return strconv.Itoa(cores + n*cpu), strconv.Itoa(memory + n*mem)
}

func (e *testEnv) workerIDs(id string) []string {
	var out []string
	for _, v := range e.cluster(id).Virtualmachines {
		if strings.Contains(v.Name, "-node-") {
			out = append(out, v.Id)
		}
	}
	return out
}

func ledgerScenarios() []ledgerScenario {
	var out []ledgerScenario
	out = append(out, createScenarios()...)
	out = append(out, scaleScenarios()...)
	out = append(out, lifecycleScenarios()...)
	out = append(out, ruleScenarios()...)
	out = append(out, failureScenarios()...)
	out = append(out, externalNodeScenarios()...)
	out = append(out, vpcScenarios()...)
	out = append(out, catalogScenarios()...)
	return out
}

func createScenarios() []ledgerScenario {
	create := func(etcd int64, set func(e *testEnv, p *cloudstack.CreateKubernetesClusterParams)) func(e *testEnv, _ string) string {
		return func(e *testEnv, _ string) string {
			return e.ledgerCluster(1, etcd, func(p *cloudstack.CreateKubernetesClusterParams) {
				if set != nil {
					set(e, p)
				}
			})
		}
	}
	return []ledgerScenario{
		{op: "create", name: "service offering only", setup: func(*testEnv) string { return "" }, run: create(1, nil),
			writes: func(e *testEnv, _ string) map[string]ledgerCheck { return createdWrites(e, true) }},
		{op: "create", name: "node offerings", setup: func(*testEnv) string { return "" },
			run: create(1, func(e *testEnv, p *cloudstack.CreateKubernetesClusterParams) {
				p.SetNodeofferings(map[string]string{"control": e.info.LargeServiceOfferingID, "worker": e.info.ServiceOfferingID,
					"etcd": e.info.ServiceOfferingID})
			}),
			writes: func(e *testEnv, _ string) map[string]ledgerCheck {
				w := createdWrites(e, true)
				for key, want := range map[string]string{"controloffering": e.info.LargeServiceOfferingID,
					"workeroffering": e.info.ServiceOfferingID, "etcdoffering": e.info.ServiceOfferingID} {
					w["cluster."+key+"id"] = is(want)
					w["cluster."+key+"name"] = written
				}
				return w
			}},
	}
}

// userNetworkDelete deletes a cluster with an etcd node on the seeded
// isolated network, which a user's TCP rule on 6443 (from 10.0.0.0/8)
// shares with CKS's (from 0.0.0.0/0): the destroy revokes the one of the
// two that the DAO returns first, gone, and leaves the other, kept, and the
// etcd SSH rule.
func userNetworkDelete(order, gone, kept string) ledgerScenario {
	return ledgerScenario{op: "delete-user-network", name: "rules read " + cmp.Or(order, "ascending"),
		opts: Options{WorkerRuleOrder: order},
		setup: func(e *testEnv) string {
			id := e.ledgerCluster(1, 1, func(p *cloudstack.CreateKubernetesClusterParams) { p.SetNetworkid(e.info.IsolatedNetworkID) })
			status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {e.cluster(id).Ipaddressid},
				"protocol": {"tcp"}, "startport": {"6443"}, "endport": {"6443"}, "cidrlist": {"10.0.0.0/8"}})
			if status != 200 {
				e.t.Fatalf("createFirewallRule: %d %v", status, body)
			}
			e.mustSucceed(asStr(e.t, inner(e.t, body, "createfirewallruleresponse")["jobid"]))
			return id
		},
		run: func(e *testEnv, id string) string { e.mustSucceed(e.deleteCluster(id)); return id },
		writes: func(*testEnv, string) map[string]ledgerCheck {
			firewalls := func(c ledgerChange) error {
				for _, want := range []string{"tcp 6443-6443 [" + kept + "]", "tcp 50000-50000 [0.0.0.0/0]"} {
					if !strings.Contains(c.after, want) {
						return fmt.Errorf("firewall rules after the destroy %q lack %q", c.after, want)
					}
				}
				if strings.Contains(c.after, "tcp 6443-6443 ["+gone+"]") || strings.Contains(c.after, "2222-") {
					return fmt.Errorf("firewall rules after the destroy %q keep the 6443 rule from %s or the node range", c.after, gone)
				}
				return nil
			}
			w := map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterDestroying, model.ClusterDestroyed), "vm.removed": is("3"),
				"rules.Firewall": firewalls, "rules.PortForwarding": cleared, "rules.LoadBalancing": cleared}
			for _, f := range append(clusterCreatedFields, "etcdips") {
				w["cluster."+f] = cleared
			}
			return w
		}}
}

func scaleScenarios() []ledgerScenario {
	cluster := func(size int64) func(e *testEnv) string {
		return func(e *testEnv) string { return e.ledgerCluster(size, 1, nil) }
	}
	stopped := func(e *testEnv) string {
		id := e.ledgerCluster(1, 0, nil)
		e.stopCluster(id)
		return id
	}
	sized := func(size int64, worker bool) func(e *testEnv, id string) string {
		return func(e *testEnv, id string) string {
			e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
				p.SetSize(size)
				if worker {
					p.SetNodeofferings(map[string]string{"worker": e.info.ServiceOfferingID})
				}
			}))
			return id
		}
	}
	sizeWrites := func(delta int, worker bool) func(e *testEnv, id string) map[string]ledgerCheck {
		return func(e *testEnv, id string) map[string]ledgerCheck {
			cores, memory := e.capacityPlus(id, delta, e.info.ServiceOfferingID)
			w := map[string]ledgerCheck{
				"state":                states(model.ClusterRunning, model.ClusterScaling, model.ClusterRunning),
				"cluster.size":         is(strconv.Itoa(int(e.cluster(id).Size) + delta)),
				"cluster.cpunumber":    is(cores),
				"cluster.memory":       is(memory),
				"rules.Firewall":       written,
				"rules.PortForwarding": written,
			}
			if delta > 0 {
				w["vm.added"] = is(strconv.Itoa(delta))
			} else {
				w["vm.removed"] = is(strconv.Itoa(-delta))
			}
			if worker {
				w["cluster.workerofferingid"] = is(e.info.ServiceOfferingID)
				w["cluster.workerofferingname"] = written
			}
			return w
		}
	}
	offeringWrites := func(roles ...string) func(e *testEnv, id string) map[string]ledgerCheck {
		return func(e *testEnv, _ string) map[string]ledgerCheck {
			w := map[string]ledgerCheck{
				"state":                states(model.ClusterStopped, model.ClusterScalingStoppedCluster, model.ClusterStopped),
				"vm.serviceofferingid": written,
			}
			for _, role := range roles {
				w["cluster."+role+"id"] = is(e.info.LargeServiceOfferingID)
				w["cluster."+role+"name"] = written
			}
			return w
		}
	}
	return []ledgerScenario{
		{op: "scale-size", name: "up, worker entry", setup: cluster(1), run: sized(2, true), writes: sizeWrites(1, true)},
		{op: "scale-size", name: "down, worker entry", setup: cluster(2), run: sized(1, true), writes: sizeWrites(-1, true)},
		{op: "scale-size", name: "up, size alone", setup: cluster(1), run: sized(2, false), writes: sizeWrites(1, false)},
		{op: "scale-size", name: "down, size alone", setup: cluster(2), run: sized(1, false), writes: sizeWrites(-1, false)},
		{op: "scale-nodeids", name: "one worker", setup: cluster(2),
			run: func(e *testEnv, id string) string {
				e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
					p.SetNodeids(e.workerIDs(id)[:1])
					p.SetNodeofferings(map[string]string{"control": e.info.ServiceOfferingID, "etcd": e.info.ServiceOfferingID})
				}))
				return id
			}, writes: sizeWrites(-1, false)},
		{op: "scale-offering", name: "service offering", setup: stopped,
			run: func(e *testEnv, id string) string {
				e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
					p.SetServiceofferingid(e.info.LargeServiceOfferingID)
				}))
				return id
			}, writes: offeringWrites("serviceoffering", "controloffering", "workeroffering", "etcdoffering")},
		{op: "scale-offering", name: "node offering", setup: stopped,
			run: func(e *testEnv, id string) string {
				e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
					p.SetNodeofferings(map[string]string{"control": e.info.LargeServiceOfferingID})
				}))
				return id
			}, writes: offeringWrites("controloffering")},
		{op: "scale-autoscaling", name: "on", setup: cluster(1),
			run: func(e *testEnv, id string) string {
				e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
					p.SetAutoscalingenabled(true)
					p.SetMinsize(1)
					p.SetMaxsize(3)
					p.SetNodeofferings(map[string]string{"worker": e.info.ServiceOfferingID})
				}))
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterScaling, model.ClusterRunning),
					"cluster.autoscalingenabled": is("true"), "cluster.minsize": is("1"), "cluster.maxsize": is("3")}
			}},
		{op: "scale-autoscaling", name: "off", setup: func(e *testEnv) string {
			id := e.ledgerCluster(1, 1, nil)
			e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
				p.SetAutoscalingenabled(true)
				p.SetMinsize(1)
				p.SetMaxsize(3)
			}))
			return id
		},
			run: func(e *testEnv, id string) string {
				e.mustSucceed(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) { p.SetAutoscalingenabled(false) }))
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterScaling, model.ClusterRunning),
					"cluster.autoscalingenabled": is("false"), "cluster.minsize": cleared, "cluster.maxsize": cleared}
			}},
	}
}

func lifecycleScenarios() []ledgerScenario {
	cluster := func(e *testEnv) string { return e.ledgerCluster(1, 1, nil) }
	return []ledgerScenario{
		{op: "upgrade", name: "1.33.13 to 1.34.2", setup: cluster,
			run: func(e *testEnv, id string) string {
				r, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions["1.34.2"]))
				if err != nil {
					e.t.Fatal(err)
				}
				e.mustSucceed(r.JobID)
				return id
			},
			writes: func(e *testEnv, _ string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterUpgrading, model.ClusterRunning),
					"cluster.kubernetesversionid": is(e.info.KubernetesVersions["1.34.2"]), "cluster.kubernetesversionname": is("v1.34.2"),
					"vm.kubernetesnodeversion": is("v1.34.2, v1.34.2")}
			}},
		{op: "stop", name: "running", setup: cluster,
			run: func(e *testEnv, id string) string { e.stopCluster(id); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterStopping, model.ClusterStopped), "vm.state": written}
			}},
		{op: "start", name: "stopped", setup: func(e *testEnv) string { id := cluster(e); e.stopCluster(id); return id },
			run: func(e *testEnv, id string) string { e.mustSucceed(e.startCluster(id)); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterStopped, model.ClusterStarting, model.ClusterRunning), "vm.state": written}
			}},
		{op: "delete", name: "own network", setup: cluster,
			run: func(e *testEnv, id string) string { e.mustSucceed(e.deleteCluster(id)); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				w := map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterDestroying, model.ClusterDestroyed), "vm.removed": is("3"),
					"rules.Firewall": cleared, "rules.PortForwarding": cleared, "rules.LoadBalancing": cleared}
				for _, f := range append(clusterCreatedFields, "etcdips") {
					w["cluster."+f] = cleared
				}
				return w
			}},
		userNetworkDelete(WorkerRuleOrderAscending, "0.0.0.0/0", "10.0.0.0/8"),
		userNetworkDelete(WorkerRuleOrderDescending, "10.0.0.0/8", "0.0.0.0/0"),
		{op: "scanner", name: "Running to Alert", setup: func(e *testEnv) string {
			id := cluster(e)
			if err := e.sim.SetVMState(e.workerIDs(id)[0], model.VMStopped); err != nil {
				e.t.Fatal(err)
			}
			return id
		},
			run: func(e *testEnv, id string) string { e.sim.RunScanner(); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterAlert)}
			}},
		{op: "scanner", name: "Alert to Running", setup: func(e *testEnv) string {
			id := cluster(e)
			if err := e.sim.SetClusterState(id, model.ClusterAlert); err != nil {
				e.t.Fatal(err)
			}
			return id
		},
			run: func(e *testEnv, id string) string { e.sim.RunScanner(); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterAlert, model.ClusterRecovering, model.ClusterRunning)}
			}},
	}
}

func ruleScenarios() []ledgerScenario {
	cluster := func(e *testEnv) string { return e.ledgerCluster(1, 0, nil) }
	firewall := func(e *testEnv, id string) string {
		status, body := e.adminCall("createFirewallRule", url.Values{"ipaddressid": {e.cluster(id).Ipaddressid},
			"protocol": {"tcp"}, "startport": {"40000"}, "endport": {"40001"}, "cidrlist": {"10.0.0.0/8"}})
		if status != 200 {
			e.t.Fatalf("createFirewallRule: %d %v", status, body)
		}
		e.mustSucceed(asStr(e.t, inner(e.t, body, "createfirewallruleresponse")["jobid"]))
		return id
	}
	deleteRule := func(command, purpose string) func(e *testEnv, id string) string {
		return func(e *testEnv, id string) string {
			var ruleID string
			for _, r := range e.sim.DumpState().Rules {
				if r.Purpose == purpose && (r.StartPort == 40000 || r.StartPort == 2222) {
					ruleID = r.ID
				}
			}
			status, body := e.adminCall(command, url.Values{"id": {ruleID}})
			if status != 200 {
				e.t.Fatalf("%s: %d %v", command, status, body)
			}
			e.mustSucceed(asStr(e.t, inner(e.t, body, strings.ToLower(command)+"response")["jobid"]))
			return id
		}
	}
	rulesOnly := func(purpose string, check ledgerCheck) func(*testEnv, string) map[string]ledgerCheck {
		return func(*testEnv, string) map[string]ledgerCheck {
			return map[string]ledgerCheck{"rules." + purpose: check}
		}
	}
	return []ledgerScenario{
		{op: "rules", name: "createFirewallRule", setup: cluster, run: firewall, writes: rulesOnly("Firewall", written)},
		{op: "rules", name: "deleteFirewallRule", setup: func(e *testEnv) string { return firewall(e, cluster(e)) },
			run: deleteRule("deleteFirewallRule", "Firewall"), writes: rulesOnly("Firewall", written)},
		{op: "rules", name: "createPortForwardingRule", setup: cluster,
			run: func(e *testEnv, id string) string {
				e.addForward(e.cluster(id).Ipaddressid, 40000, e.workerIDs(id)[0])
				return id
			}, writes: rulesOnly("PortForwarding", written)},
		{op: "rules", name: "deletePortForwardingRule", setup: cluster, run: deleteRule("deletePortForwardingRule", "PortForwarding"),
			writes: rulesOnly("PortForwarding", written)},
	}
}

func failureScenarios() []ledgerScenario {
	cluster := func(e *testEnv) string { return e.ledgerCluster(1, 1, nil) }
	failStep := func(op, step string) func(e *testEnv) {
		return func(e *testEnv) {
			if err := e.sim.FailJobStep(op, step, 1, ""); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	return []ledgerScenario{
		{op: "create", name: "fails before the kubeconfig", setup: func(e *testEnv) string { failStep("create", "nodes-ready")(e); return "" },
			run: func(e *testEnv, _ string) string {
				p := e.createParams("ledger", 1)
				p.SetDescription("")
				r, err := e.cs.Kubernetes.CreateKubernetesCluster(p)
				if err != nil {
					e.t.Fatal(err)
				}
				e.mustFail(r.JobID)
				return r.Id
			},
			writes: func(e *testEnv, _ string) map[string]ledgerCheck {
				w := createdWrites(e, false)
				// The endpoint is written once the API answers, before
				// the ready-node count (startKubernetesClusterOnCreate).
				w["state"] = states(model.ClusterCreated, model.ClusterStarting, model.ClusterError)
				return w
			}},
		{op: "scale-size", name: "up fails waiting for ready nodes", setup: func(e *testEnv) string {
			id := cluster(e)
			failStep("scale-up", "nodes-ready")(e)
			return id
		},
			run: func(e *testEnv, id string) string {
				e.mustFail(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
					p.SetSize(2)
					p.SetNodeofferings(map[string]string{"worker": e.info.ServiceOfferingID})
				}))
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterScaling, model.ClusterAlert), "vm.added": is("1"),
					"rules.Firewall": written, "rules.PortForwarding": written}
			}},
		{op: "scale-autoscaling", name: "on fails", setup: func(e *testEnv) string {
			id := cluster(e)
			failStep("scale-autoscaling", "autoscaler")(e)
			return id
		},
			run: func(e *testEnv, id string) string {
				e.mustFail(e.scaleWith(id, func(p *cloudstack.ScaleKubernetesClusterParams) {
					p.SetAutoscalingenabled(true)
					p.SetMinsize(1)
					p.SetMaxsize(3)
				}))
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterScaling)}
			}},
		{op: "upgrade", name: "fails at the second node", setup: func(e *testEnv) string {
			// The worker's SSH forward is gone: the control node is
			// upgraded, the worker cannot be reached.
			id := e.ledgerCluster(1, 0, nil)
			for _, r := range e.portForwards(e.cluster(id).Ipaddressid) {
				if r.Publicport == "2223" {
					if err := e.sim.DeleteRule(r.Id); err != nil {
						e.t.Fatal(err)
					}
				}
			}
			return id
		},
			run: func(e *testEnv, id string) string {
				r, err := e.cs.Kubernetes.UpgradeKubernetesCluster(e.cs.Kubernetes.NewUpgradeKubernetesClusterParams(id, e.info.KubernetesVersions["1.34.2"]))
				if err != nil {
					e.t.Fatal(err)
				}
				e.mustFail(r.JobID)
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterUpgrading, model.ClusterAlert), "vm.kubernetesnodeversion": is("v1.34.2")}
			}},
		{op: "start", name: "fails at the API check", setup: func(e *testEnv) string {
			id := cluster(e)
			e.stopCluster(id)
			failStep("start", "api")(e)
			return id
		},
			run: func(e *testEnv, id string) string { e.mustFail(e.startCluster(id)); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				return map[string]ledgerCheck{"state": states(model.ClusterStopped, model.ClusterStarting, model.ClusterAlert), "vm.state": written}
			}},
		{op: "delete-user-network", name: "fails removing the forwards", setup: func(e *testEnv) string {
			id := userNetworkDelete("", "", "").setup(e)
			failStep("delete", "forwards")(e)
			return id
		},
			run: func(e *testEnv, id string) string {
				if code, text := e.mustFail(e.deleteCluster(id)); code != 530 || text != "Failed to remove network rules of Kubernetes cluster : ledger" {
					e.t.Fatalf("delete job: %d %q", code, text)
				}
				return id
			},
			writes: func(*testEnv, string) map[string]ledgerCheck {
				// Both revokes came before the failure; expunging the VMs
				// removed their forwards.
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterDestroying), "vm.removed": is("3"),
					"rules.Firewall": written, "rules.LoadBalancing": cleared, "rules.PortForwarding": cleared, "cluster.etcdips": cleared}
			}},
		{op: "delete", name: "fails destroying the network", setup: func(e *testEnv) string {
			id := cluster(e)
			failStep("delete", "network")(e)
			return id
		},
			run: func(e *testEnv, id string) string { e.mustFail(e.deleteCluster(id)); return id },
			writes: func(*testEnv, string) map[string]ledgerCheck {
				// Expunging a VM removes its port forwards, which etcdips
				// is built from.
				return map[string]ledgerCheck{"state": states(model.ClusterRunning, model.ClusterDestroying), "vm.removed": is("3"),
					"rules.PortForwarding": cleared, "cluster.etcdips": cleared}
			}},
	}
}

func TestWriteLedger(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	tested := map[string]map[string]bool{}
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range ledgerScenarios() {
			t.Run(sc.op+"/"+sc.name, func(t *testing.T) {
				t.Parallel()
				opts := sc.opts
				opts.DisableScanner = true
				e := newEnv(t, opts)
				id := sc.setup(e)
				before := e.ledgerView(id)
				want := sc.writes(e, id)
				mu.Lock()
				if tested[sc.op] == nil {
					tested[sc.op] = map[string]bool{}
				}
				for key := range want {
					tested[sc.op][key] = true
				}
				mu.Unlock()
				id = sc.run(e, id)
				checkLedgerWrites(t, want, diffViews(before, e.ledgerView(id)))
			})
		}
	})
	if !t.Failed() {
		checkFidelityLedger(t, tested)
	}
}

// checkLedgerWrites: every expected write happened with its value, and
// nothing else changed.
func checkLedgerWrites(t *testing.T, want map[string]ledgerCheck, got map[string]ledgerChange) {
	t.Helper()
	for _, key := range slices.Sorted(maps.Keys(want)) {
		c, ok := got[key]
		if !ok {
			t.Errorf("%s: not written", key)
			continue
		}
		if err := want[key](c); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[key]; !ok {
			t.Errorf("%s: written (%q -> %q) but not in the ledger", key, got[key].before, got[key].after)
		}
	}
}

// ledgerRow matches a row of FIDELITY.md's write ledger; its first cell
// holds the row's keys in backquotes. A key ending in ".*" stands for every
// key of that prefix.
var (
	ledgerRow     = regexp.MustCompile("^\\| ([^|]*`[^|]*) \\|")
	ledgerKey     = regexp.MustCompile("`([a-zA-Z.*]+)`")
	ledgerHeading = regexp.MustCompile("^### `([a-z-]+)`")
)

// fidelityLedger reads the write ledger's keys by op ("### `op`" headings).
func fidelityLedger(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("FIDELITY.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	inLedger, op := false, ""
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			inLedger, op = strings.HasPrefix(line, "## Write ledger"), ""
		case !inLedger:
		case ledgerHeading.MatchString(line):
			op = ledgerHeading.FindStringSubmatch(line)[1]
		case op != "" && ledgerRow.MatchString(line):
			for _, m := range ledgerKey.FindAllStringSubmatch(ledgerRow.FindStringSubmatch(line)[1], -1) {
				out[op] = append(out[op], m[1])
			}
		}
	}
	return out
}

// ledgerCovers tells whether a row key covers a tested key.
func ledgerCovers(row, key string) bool {
	prefix, wild := strings.CutSuffix(row, "*")
	return row == key || wild && strings.HasPrefix(key, prefix)
}

// checkFidelityLedger: every row of FIDELITY.md's write ledger is checked
// by a scenario of TestWriteLedger, and every write the scenarios check has
// its row.
func checkFidelityLedger(t *testing.T, tested map[string]map[string]bool) {
	t.Helper()
	doc := fidelityLedger(t)
	if len(doc) == 0 {
		t.Fatal("FIDELITY.md has no write ledger")
	}
	for _, op := range slices.Sorted(maps.Keys(doc)) {
		for _, row := range doc[op] {
			if !slices.ContainsFunc(slices.Collect(maps.Keys(tested[op])), func(key string) bool { return ledgerCovers(row, key) }) {
				t.Errorf("FIDELITY.md ledger %s: row %s has no test", op, row)
			}
		}
		for _, key := range slices.Sorted(maps.Keys(tested[op])) {
			if !slices.ContainsFunc(doc[op], func(row string) bool { return ledgerCovers(row, key) }) {
				t.Errorf("FIDELITY.md ledger %s: no row for the tested write %s", op, key)
			}
		}
	}
	for _, op := range slices.Sorted(maps.Keys(tested)) {
		if doc[op] == nil {
			t.Errorf("FIDELITY.md ledger has no section for %s", op)
		}
	}
}
