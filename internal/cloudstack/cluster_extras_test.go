package cloudstack

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestCreateSendsClusterExtras(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("createKubernetesCluster", okJSON("createKubernetesCluster", map[string]any{"id": "c-1", "jobid": "j-1"}))
	c := newTestClient(t, fake.start().URL)

	_, err := c.CreateKubernetesCluster(t.Context(), CreateClusterParams{Name: "prod", ZoneID: "z-1", Size: 1,
		ClusterExtras: ClusterExtras{
			NodeTemplates:          map[string]string{"WORKER": "t-w", "CONTROL": "t-c"},
			CNIConfigurationID:     "cni-1",
			CNIConfigDetails:       map[string]string{"MTU": "1450", "podCidr": "10.244.0.0/16"},
			ASNumber:               64512,
			DockerRegistryURL:      "https://registry.example.com",
			DockerRegistryUsername: "puller",
			DockerRegistryPassword: "pa55-word",
			EnableCSI:              true,
			ExternalLoadBalancerIP: "192.0.2.10",
		}})
	if err != nil {
		t.Fatalf("CreateKubernetesCluster: %v", err)
	}
	got := fake.recorded("createKubernetesCluster")[0].params
	want := map[string]string{
		"nodetemplates[0].node": "CONTROL", "nodetemplates[0].template": "t-c",
		"nodetemplates[1].node": "WORKER", "nodetemplates[1].template": "t-w",
		"cniconfigurationid": "cni-1", "cniconfigdetails[0].MTU": "1450", "cniconfigdetails[1].podCidr": "10.244.0.0/16",
		"asnumber": "64512", "dockerregistryurl": "https://registry.example.com", "dockerregistryusername": "puller",
		"dockerregistrypassword": "pa55-word", "enablecsi": "true", "externalloadbalanceripaddress": "192.0.2.10",
	}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.Get(k), v)
		}
	}
}

func TestCreateOmitsUnsetClusterExtras(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	fake.handle("createKubernetesCluster", okJSON("createKubernetesCluster", map[string]any{"id": "c-1", "jobid": "j-1"}))
	c := newTestClient(t, fake.start().URL)
	if _, err := c.CreateKubernetesCluster(t.Context(), CreateClusterParams{Name: "prod", ZoneID: "z-1", Size: 1}); err != nil {
		t.Fatalf("CreateKubernetesCluster: %v", err)
	}
	got := fake.recorded("createKubernetesCluster")[0].params
	for name := range got {
		for _, extra := range []string{"nodetemplates", "cniconfig", "asnumber", "dockerregistry", "enablecsi", "externalloadbalancer"} {
			if strings.HasPrefix(name, extra) {
				t.Errorf("unset parameter sent: %s=%s", name, got.Get(name))
			}
		}
	}
}

func TestDecodeClusterCSIAndCNI(t *testing.T) {
	t.Parallel()
	fake := newFakeCloudStack(t)
	body := `{"listkubernetesclustersresponse":{"count":1,"kubernetescluster":[{"id":"c-1","name":"a",` +
		`"csienabled":true,"cniconfigurationid":"cni-1","cniconfigname":"calico"}]}}`
	fake.handle("listKubernetesClusters", func(*http.Request, url.Values) (int, string) { return 200, body })
	c := newTestClient(t, fake.start().URL)
	cl, err := c.GetKubernetesCluster(t.Context(), "c-1")
	if err != nil {
		t.Fatalf("GetKubernetesCluster: %v", err)
	}
	if !cl.CSIEnabled || cl.CNIConfigurationID != "cni-1" {
		t.Errorf("cluster = %+v", cl)
	}
}

func TestDockerRegistryPasswordRedactedFromMessages(t *testing.T) {
	t.Parallel()
	got := redactSecrets("GET /client/api?command=createKubernetesCluster&dockerregistrypassword=pa55-word&name=a")
	if strings.Contains(got, "pa55-word") {
		t.Errorf("password left in %q", got)
	}
}
