package simulator

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// cloudstackGoTestdata finds cloudstack-go v2.19.0's own fixtures in the
// module cache. The test fails (does not skip) when they are absent.
func cloudstackGoTestdata(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com", "apache", "cloudstack-go", "v2@v2.19.0", "test", "testdata")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("cloudstack-go v2.19.0 testdata not found: %v", err)
	}
	return dir
}

// fixtureAliases maps object names used in fixtures to the name under which
// we serve the same response type.
var fixtureAliases = map[string]string{
	"loadbalancer": "loadbalancerrule",
	"keypair":      "sshkeypair",
	"ipaddress":    "publicipaddress",
}

// collectObjects walks response bodies ({"<cmd>response": {...}}) and
// gathers objects by name; the async job envelope is named "asyncjob".
func collectObjects(into map[string][]map[string]any, envelope map[string]any) {
	for _, v := range envelope {
		inner, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if jr, ok := inner["jobresult"]; ok {
			job := map[string]any{}
			for k, x := range inner {
				job[k] = x
			}
			into["asyncjob"] = append(into["asyncjob"], job)
			if m, ok := jr.(map[string]any); ok {
				addObjects(into, m)
			}
			continue
		}
		addObjects(into, inner)
	}
}

func addObjects(into map[string][]map[string]any, body map[string]any) {
	for name, v := range body {
		if alias, ok := fixtureAliases[name]; ok {
			name = alias
		}
		switch x := v.(type) {
		case map[string]any:
			into[name] = append(into[name], x)
		case []any:
			for _, e := range x {
				if m, ok := e.(map[string]any); ok {
					into[name] = append(into[name], m)
				}
			}
		}
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// compareKinds reports fields present in both objects whose JSON types
// differ, recursing into objects and first array elements.
func compareKinds(path string, fixture, ours map[string]any) []string {
	var problems []string
	for k, fv := range fixture {
		ov, ok := ours[k]
		if !ok || fv == nil {
			continue
		}
		fk, ok2 := jsonKind(fv), jsonKind(ov)
		if fk != ok2 {
			problems = append(problems, fmt.Sprintf("%s.%s: fixture %s, simulator %s", path, k, fk, ok2))
			continue
		}
		switch fx := fv.(type) {
		case map[string]any:
			om, _ := ov.(map[string]any)
			problems = append(problems, compareKinds(path+"."+k, fx, om)...)
		case []any:
			ox, _ := ov.([]any)
			if len(fx) > 0 && len(ox) > 0 {
				fm, fok := fx[0].(map[string]any)
				om, ook := ox[0].(map[string]any)
				switch {
				case fok && ook:
					problems = append(problems, compareKinds(path+"."+k+"[]", fm, om)...)
				case jsonKind(fx[0]) != jsonKind(ox[0]):
					problems = append(problems, fmt.Sprintf("%s.%s[]: fixture %s, simulator %s", path, k, jsonKind(fx[0]), jsonKind(ox[0])))
				}
			}
		}
	}
	return problems
}

// specFields are the fields the 4.22 responses carry per object
// (KubernetesClusterResponse, UserVmResponse, FirewallResponse, ...), minus
// those that are absent by nature in this scenario (project owner, CNI
// config); conditional ones are checked in the scenario they appear in.
var specFields = map[string][]string{
	"kubernetescluster": strings.Fields(`id name description zoneid zonename serviceofferingid serviceofferingname
		workerofferingid workerofferingname controlofferingid controlofferingname etcdofferingid etcdofferingname etcdnodes
		templateid templatename networkid associatednetworkname kubernetesversionid kubernetesversionname account domainid
		domain domainpath keypair masternodes controlnodes size state cpunumber memory endpoint
		virtualmachines ipaddress ipaddressid etcdips autoscalingenabled minsize maxsize csienabled clustertype created
		hasannotations`),
	"virtualmachine": strings.Fields(`id name displayname state created hostname instancename nic ipaddress keypairs vmtype
		serviceofferingid templateid zoneid account domainid lastupdated`),
	"firewallrule": strings.Fields(`id protocol startport endport ipaddressid ipaddress networkid state cidrlist traffictype
		fordisplay tags`),
	"portforwardingrule": strings.Fields(`id privateport privateendport publicport publicendport protocol virtualmachineid
		virtualmachinename virtualmachinedisplayname ipaddressid ipaddress networkid vmguestip state cidrlist fordisplay tags`),
	"publicipaddress": strings.Fields(`id ipaddress issourcenat associatednetworkid state`),
	"kubernetessupportedversion": strings.Fields(`id name semanticversion isoid isoname isostate arch zoneid zonename
		supportsha supportsautoscaling state mincpunumber minmemory created directdownload`),
	"asyncjob": strings.Fields(`jobid accountid userid cmd created completed jobstatus jobprocstatus jobresultcode
		jobresulttype jobresult jobinstancetype jobinstanceid`),
	"clusterconfig": strings.Fields(`id name configdata`),
	"networkacl": strings.Fields(`id protocol startport endport traffictype state cidrlist aclid aclname number action
		fordisplay reason tags`),
	"networkacllist": strings.Fields(`id name description vpcid vpcname fordisplay`),
	"capability":     strings.Fields(`cloudstackversion kubernetesserviceenabled`),
}

// clusterVMFields are required on every virtualmachines[] entry of a
// cluster.
var clusterVMFields = strings.Fields(`id name displayname state created nic ipaddress keypairs serviceofferingid
	templateid vmtype isetcdnode isexternalnode kubernetesnodeversion`)

func TestTypeFidelityAgainstCloudstackGoFixtures(t *testing.T) {
	t.Parallel()
	dir := cloudstackGoTestdata(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	fixtures := map[string][]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var byCommand map[string]map[string]any
		if err := json.Unmarshal(b, &byCommand); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, envelope := range byCommand {
			collectObjects(fixtures, envelope)
		}
	}

	ours := servedObjects(t)
	compared := 0
	for name, objs := range fixtures {
		mine, served := ours[name]
		if !served {
			continue
		}
		compared++
		t.Logf("comparing %d fixture %s objects with %d served", len(objs), name, len(mine))
		for _, fixture := range objs {
			for _, o := range mine {
				for _, p := range compareKinds(name, fixture, o) {
					t.Error(p)
				}
			}
		}
	}
	if compared < 10 {
		t.Fatalf("only %d fixture object types compared; fixtures have %v", compared, sortedNames(fixtures))
	}
	for name, fields := range specFields {
		objs := ours[name]
		if len(objs) == 0 {
			t.Errorf("scenario produced no %s object", name)
			continue
		}
		for _, f := range fields {
			found := false
			for _, o := range objs {
				if _, ok := o[f]; ok {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: field %q missing", name, f)
			}
		}
	}
	for _, c := range ours["kubernetescluster"] {
		for _, v := range asList(t, c["virtualmachines"]) {
			vm := asObj(t, v)
			for _, f := range clusterVMFields {
				_, ok := vm[f]
				// Etcd nodes' map rows have no node version
				// (KubernetesClusterActionWorker.addKubernetesClusterVm), and a
				// null field is not serialised.
				etcd := vm["isetcdnode"] == true
				if ok == (etcd && f == "kubernetesnodeversion") {
					t.Errorf("cluster VM %v (etcd %t): field %q present %t", vm["name"], etcd, f, ok)
				}
			}
		}
	}
}

func sortedNames(m map[string][]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// servedObjects runs a scenario touching every object type and collects
// the objects of the simulator's raw responses.
func servedObjects(t *testing.T) map[string][]map[string]any {
	e := newEnv(t, Options{})
	p := e.createParams("fidelity", 1)
	p.SetEtcdnodes(1)
	// Node offering columns are written, and returned, only for the
	// nodeofferings entries a create sends.
	p.SetNodeofferings(map[string]string{"control": e.info.ServiceOfferingID, "worker": e.info.ServiceOfferingID,
		"etcd": e.info.ServiceOfferingID})
	id := e.createCluster(p)
	cl := e.cluster(id)
	sp := e.cs.Kubernetes.NewScaleKubernetesClusterParams(id)
	sp.SetAutoscalingenabled(true)
	sp.SetMinsize(1)
	sp.SetMaxsize(3)
	r, err := e.cs.Kubernetes.ScaleKubernetesCluster(sp)
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)

	out := map[string][]map[string]any{}
	call := func(command string, params url.Values) map[string]any {
		status, body := e.adminCall(command, params)
		if status != 200 {
			t.Fatalf("%s: HTTP %d %v", command, status, body)
		}
		collectObjects(out, body)
		return body
	}
	fw := call("createFirewallRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"startport": {"8080"}, "endport": {"8081"}})
	jobID := asStr(t, asObj(t, fw["createfirewallruleresponse"])["jobid"])
	e.mustSucceed(jobID)
	call("queryAsyncJobResult", url.Values{"jobid": {jobID}})
	worker := ""
	for _, v := range cl.Virtualmachines {
		if strings.Contains(v.Name, "-node-") {
			worker = v.Id
		}
	}
	pf := call("createPortForwardingRule", url.Values{"ipaddressid": {cl.Ipaddressid}, "protocol": {"tcp"},
		"publicport": {"30080"}, "privateport": {"80"}, "virtualmachineid": {worker}, "openfirewall": {"false"}})
	e.mustSucceed(asStr(t, asObj(t, pf["createportforwardingruleresponse"])["jobid"]))
	for _, cmd := range []string{"listKubernetesClusters", "listKubernetesSupportedVersions", "listVirtualMachines",
		"listFirewallRules", "listPortForwardingRules", "listLoadBalancerRules", "listPublicIpAddresses", "listNetworks",
		"listZones", "listServiceOfferings", "listSSHKeyPairs", "listDomains", "listAccounts", "listCapabilities",
		"listNetworkACLs", "listNetworkACLLists", "listIsos", "listCniConfiguration"} {
		call(cmd, url.Values{})
	}
	call("listProjects", url.Values{"listall": {"true"}})
	call("getKubernetesClusterConfig", url.Values{"id": {id}})
	return out
}
