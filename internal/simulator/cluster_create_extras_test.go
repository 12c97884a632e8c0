package simulator

import (
	"net/url"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// TestCreateStoresExtrasAndReturnsOnlyCNIAndCSI creates a cluster with every
// create-only input and checks what is stored (dump), what the VMs got and
// that the response carries only csienabled and the CNI configuration.
func TestCreateStoresExtrasAndReturnsOnlyCNIAndCSI(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{ExperimentalFeatures: true})
	p := e.createParams("extras", 1)
	p.SetEtcdnodes(1)
	p.SetNodetemplates(map[string]string{"worker": e.info.NodeTemplateID, "ETCD": e.info.NodeTemplateID})
	p.SetCniconfigurationid(e.info.CNIConfigurationID)
	p.SetCniconfigdetails(map[string]string{"podCidr": "10.244.0.0/16", "MTU": "1450"})
	p.SetAsnumber(64512)
	p.SetDockerregistryurl("https://registry.example.com")
	p.SetDockerregistryusername("puller")
	p.SetDockerregistrypassword("pa55-word")
	p.SetEnablecsi(true)
	id := e.createCluster(p)

	d := e.sim.DumpState()
	var got DumpCluster
	for _, c := range d.Clusters {
		if c.ID == id {
			got = c
		}
	}
	if got.NodeTemplates["WORKER"] != e.info.NodeTemplateID || got.NodeTemplates["ETCD"] != e.info.NodeTemplateID || len(got.NodeTemplates) != 2 {
		t.Errorf("node templates = %v", got.NodeTemplates)
	}
	if got.CNIConfigurationID != e.info.CNIConfigurationID || got.CNIConfigDetails["podCidr"] != "10.244.0.0/16" || got.CNIConfigDetails["MTU"] != "1450" {
		t.Errorf("CNI = %s %v", got.CNIConfigurationID, got.CNIConfigDetails)
	}
	if got.ASNumber == nil || *got.ASNumber != 64512 || got.DockerRegistryURL != "https://registry.example.com" ||
		got.DockerRegistryUsername != "puller" || !got.DockerRegistryPassword || !got.CSIEnabled {
		t.Errorf("dump = %+v", got)
	}
	if !e.sim.DockerRegistryPasswordIs(id, "pa55-word") || e.sim.DockerRegistryPasswordIs(id, "other") {
		t.Error("stored docker registry password does not match")
	}
	if raw, _ := e.sim.Dump(); strings.Contains(string(raw), "pa55-word") {
		t.Error("dump contains the docker registry password")
	}
	for _, v := range d.VMs {
		if v.ClusterID != id {
			continue
		}
		want := e.info.NodeTemplateID
		if v.Role == string(model.RoleControl) {
			// Control nodes have no entry: they keep the system VM template.
			if v.TemplateID == e.info.NodeTemplateID {
				t.Errorf("control VM %s got the worker/etcd template", v.Name)
			}
			continue
		}
		if v.TemplateID != want {
			t.Errorf("%s VM %s template %s, want %s", v.Role, v.Name, v.TemplateID, want)
		}
	}

	_, body := e.adminCall("listKubernetesClusters", url.Values{"id": {id}})
	cl := asObj(t, asList(t, asObj(t, body["listkubernetesclustersresponse"])["kubernetescluster"])[0])
	if cl["csienabled"] != true || cl["cniconfigurationid"] != e.info.CNIConfigurationID || cl["cniconfigname"] != cniConfigName {
		t.Errorf("response csienabled=%v cniconfigurationid=%v cniconfigname=%v", cl["csienabled"], cl["cniconfigurationid"], cl["cniconfigname"])
	}
	for _, absent := range []string{"nodetemplates", "cniconfigdetails", "asnumber", "dockerregistryurl",
		"dockerregistryusername", "dockerregistrypassword", "externalloadbalanceripaddress"} {
		if _, ok := cl[absent]; ok {
			t.Errorf("response has %s, which createKubernetesClusterResponse never sets", absent)
		}
	}
	if cl["templateid"] == e.info.NodeTemplateID {
		t.Error("templateid is the cluster's DEFAULT template, not a node type's")
	}
}

// TestCreateRefusesBadExtras checks the server's refusals and texts.
func TestCreateRefusesBadExtras(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	cases := []struct {
		name string
		set  func(url.Values)
		want string
	}{
		{"partial registry", func(v url.Values) { v.Set("dockerregistryurl", "https://r.example.com") },
			"All the docker private registry parameters (username, password, url) required are specified"},
		{"registry URL without scheme", func(v url.Values) {
			v.Set("dockerregistryurl", "r.example.com:5000")
			v.Set("dockerregistryusername", "u")
			v.Set("dockerregistrypassword", "p")
		}, "Invalid docker registry url specified"},
		{"registry not experimental", func(v url.Values) {
			v.Set("dockerregistryurl", "https://r.example.com")
			v.Set("dockerregistryusername", "u")
			v.Set("dockerregistrypassword", "p")
		}, "Private registry for the Kubernetes cluster is an experimental feature"},
		{"bad external LB address", func(v url.Values) { v.Set("externalloadbalanceripaddress", "300.1.1.1") },
			"Invalid external load balancer IP address"},
		{"external LB without network", func(v url.Values) { v.Set("externalloadbalanceripaddress", "192.0.2.10") },
			"externalloadbalanceripaddress parameter must be specified along with networkid parameter"},
		{"external LB on an isolated network", func(v url.Values) {
			v.Set("externalloadbalanceripaddress", "192.0.2.10")
			v.Set("networkid", e.info.IsolatedNetworkID)
		}, "must be specified when network type is not Shared or is ROUTED network"},
		{"bad node type", func(v url.Values) {
			v.Set("nodetemplates[0].node", "master")
			v.Set("nodetemplates[0].template", e.info.NodeTemplateID)
		}, "The provided value 'master' for Node Type is invalid"},
		{"incomplete node template", func(v url.Values) { v.Set("nodetemplates[0].node", "WORKER") },
			"Incomplete Node Type to template ID mapping: 'WORKER' -> 'null'"},
		{"unknown template", func(v url.Values) {
			v.Set("nodetemplates[0].node", "WORKER")
			v.Set("nodetemplates[0].template", "00000000-0000-0000-0000-000000000000")
		}, "Cannot find a template with ID 00000000-0000-0000-0000-000000000000"},
		{"unknown CNI configuration", func(v url.Values) { v.Set("cniconfigurationid", "00000000-0000-0000-0000-000000000000") },
			"Invalid parameter cniconfigurationid value=00000000-0000-0000-0000-000000000000 due to incorrect long value format, or entity does not exist"},
		{"AS number not a number", func(v url.Values) { v.Set("asnumber", "AS64512") }, "asnumber"},
	}
	for _, tc := range cases {
		v := url.Values{"name": {"bad"}, "zoneid": {e.info.ZoneID}, "kubernetesversionid": {e.info.KubernetesVersions["1.33.13"]},
			"serviceofferingid": {e.info.ServiceOfferingID}, "size": {"1"}}
		tc.set(v)
		status, body := e.adminCall("createKubernetesCluster", v)
		resp := asObj(t, body["createkubernetesclusterresponse"])
		if status == 200 || !strings.Contains(asStr(t, resp["errortext"]), tc.want) {
			t.Errorf("%s: %d %v, want an error with %q", tc.name, status, resp["errortext"], tc.want)
		}
	}
}

func TestDetailsMapKeepsSubKeyCase(t *testing.T) {
	t.Parallel()
	p := wire.NewParams("createKubernetesCluster", url.Values{"cniconfigdetails[0].podCidr": {"a"},
		"CNIConfigDetails[1].MTU": {"b"}, "other[0].x": {"c"}})
	got := p.DetailsMap("cniconfigdetails")
	if len(got) != 2 || got["podCidr"] != "a" || got["MTU"] != "b" {
		t.Errorf("detailsMap = %v", got)
	}
}
