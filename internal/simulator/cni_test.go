package simulator

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

func (e *testEnv) registerCNI(apiKey, secret string, params url.Values) (int, map[string]any) {
	e.t.Helper()
	return e.rawCall(apiKey, secret, "registerCniConfiguration", params)
}

func (e *testEnv) listCNI(apiKey, secret string, params url.Values) []map[string]any {
	e.t.Helper()
	status, body := e.rawCall(apiKey, secret, "listCniConfiguration", params)
	if status != 200 {
		e.t.Fatalf("listCniConfiguration %v: %d %v", params, status, body)
	}
	var out []map[string]any
	list, _ := inner(e.t, body, "listcniconfigurationresponse")["cniconfig"].([]any)
	for _, o := range list {
		out = append(out, asObj(e.t, o))
	}
	return out
}

// A CNI configuration is stored as user data: base64 only, re-encoded with
// padding, its parameter names as sent, owned by the caller or the account
// or project it names, its name unique in its account.
func TestRegisterCniConfiguration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin, secret := e.info.APIKey, e.info.SecretKey
	unpadded := strings.TrimRight(base64.StdEncoding.EncodeToString([]byte("calico: {}\n")), "=")
	status, body := e.registerCNI(admin, secret, url.Values{"name": {"calico"}, "cniconfig": {unpadded}, "params": {"AS_NUMBER,POD_CIDR"}})
	if status != 200 {
		t.Fatalf("register: %d %v", status, body)
	}
	cfg := asObj(t, inner(t, body, "registercniconfigurationresponse")["cniconfig"])
	if cfg["userdata"] != base64.StdEncoding.EncodeToString([]byte("calico: {}\n")) || cfg["params"] != "AS_NUMBER,POD_CIDR" ||
		cfg["account"] != seedAdminAccount || cfg["name"] != "calico" {
		t.Fatalf("the registered configuration: %v", cfg)
	}
	for _, tc := range []struct {
		params url.Values
		text   string
	}{
		{url.Values{"name": {"plain"}, "cniconfig": {"calico: {}"}}, "User data is not base64 encoded"},
		{url.Values{"name": {"CALICO"}, "cniconfig": {"YQ=="}}, "A userdata with name CALICO already exists for this account."},
		{url.Values{"name": {"empty"}, "cniconfig": {"===="}}, "User data is too short"},
		{url.Values{"name": {"huge"}, "cniconfig": {strings.Repeat("QUFB", 8193)}}, "User data has exceeded configurable max length : 32768"},
		{url.Values{"cniconfig": {"YQ=="}}, "missing parameter name"},
	} {
		if status, body := e.registerCNI(admin, secret, tc.params); status != 431 || !strings.Contains(errorText(t, body), tc.text) {
			t.Errorf("%v: %d %v, want 431 %q", tc.params, status, body, tc.text)
		}
	}
	// The same name in another account, and in a project.
	if status, body := e.registerCNI(e.info.TenantAPIKey, e.info.TenantSecretKey, url.Values{"name": {"calico"}, "cniconfig": {"YQ=="}}); status != 200 {
		t.Fatalf("the tenant's calico: %d %v", status, body)
	}
	status, body = e.registerCNI(e.info.TenantAPIKey, e.info.TenantSecretKey,
		url.Values{"name": {"calico"}, "cniconfig": {"YQ=="}, "projectid": {e.info.ProjectID}})
	if status != 200 || asObj(t, inner(t, body, "registercniconfigurationresponse")["cniconfig"])["projectid"] != e.info.ProjectID {
		t.Fatalf("the project's calico: %d %v", status, body)
	}
}

// listCniConfiguration lists the caller's CNI configurations newest first,
// and no other user data.
func TestListCniConfigurationScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	admin, secret := e.info.APIKey, e.info.SecretKey
	for _, name := range []string{"first", "second"} {
		if status, body := e.registerCNI(admin, secret, url.Values{"name": {name}, "cniconfig": {"YQ=="}}); status != 200 {
			t.Fatalf("%s: %d %v", name, status, body)
		}
	}
	if status, body := e.registerCNI(e.info.TenantAPIKey, e.info.TenantSecretKey, url.Values{"name": {"theirs"}, "cniconfig": {"YQ=="}}); status != 200 {
		t.Fatalf("theirs: %d %v", status, body)
	}
	var names []string
	for _, c := range e.listCNI(admin, secret, url.Values{}) {
		names = append(names, asStr(t, c["name"]))
	}
	if strings.Join(names, " ") != "second first "+cniConfigName {
		t.Fatalf("the admin's own list: %v", names)
	}
	if got := e.listCNI(admin, secret, url.Values{"listall": {"true"}}); len(got) != 4 {
		t.Fatalf("listall: %d configurations", len(got))
	}
	if got := e.listCNI(e.info.TenantAPIKey, e.info.TenantSecretKey, url.Values{}); len(got) != 1 || got[0]["name"] != "theirs" {
		t.Fatalf("the tenant's list: %v", got)
	}
	if got := e.listCNI(admin, secret, url.Values{"name": {"FIRST"}}); len(got) != 1 {
		t.Fatalf("by name: %v", got)
	}
}

// Deleting a CNI configuration a cluster refers to succeeds, and then every
// list of clusters that holds the cluster fails: the cluster response reads
// the removed user data as null.
func TestDeleteCniConfigurationOfACluster(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	p := e.createParams("cni", 1)
	p.SetCniconfigurationid(e.info.CNIConfigurationID)
	e.createCluster(p)
	status, body := e.adminCall("deleteCniConfiguration", url.Values{"id": {e.info.CNIConfigurationID}})
	if status != 200 || inner(t, body, "deletecniconfigurationresponse")["success"] != true {
		t.Fatalf("delete: %d %v", status, body)
	}
	if got := e.listCNI(e.info.APIKey, e.info.SecretKey, url.Values{}); len(got) != 0 {
		t.Fatalf("listed after the delete: %v", got)
	}
	status, body = e.adminCall("listKubernetesClusters", url.Values{})
	if status != 530 || !strings.Contains(errorText(t, body), `"cniConfig" is null`) {
		t.Fatalf("the admin's cluster list: %d %v", status, body)
	}
	if status, body := e.adminCall("deleteCniConfiguration", url.Values{"id": {e.info.CNIConfigurationID}}); status != 431 {
		t.Fatalf("a second delete: %d %v", status, body)
	}
}
