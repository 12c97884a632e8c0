package simulator

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
)

// listOne is the one object a list command by id returns, as its admin
// sees it.
func (e *testEnv) listOne(command, object, id string) map[string]any {
	e.t.Helper()
	status, body := e.adminCall(command, url.Values{"id": {id}})
	if status != 200 {
		e.t.Fatalf("%s %s: %d %v", command, id, status, body)
	}
	list, _ := inner(e.t, body, strings.ToLower(command)+"response")[object].([]any)
	if len(list) != 1 {
		e.t.Fatalf("%s %s: listed %d times", command, id, len(list))
	}
	return asObj(e.t, list[0])
}

// versionFields reads a version as listKubernetesSupportedVersions shows
// it, as strings.
func (e *testEnv) versionFields(id string) map[string]string {
	e.t.Helper()
	return stringFields(e.listOne("listKubernetesSupportedVersions", "kubernetessupportedversion", id))
}

// isoFields reads an ISO as listIsos shows it to an admin, with its one
// image store's download state and percentage.
func (e *testEnv) isoFields(id string) map[string]string {
	e.t.Helper()
	o := e.listOne("listIsos", "iso", id)
	out := stringFields(o)
	if details, ok := o["downloaddetails"].([]any); ok && len(details) == 1 {
		d := asObj(e.t, details[0])
		out["downloadState"], out["downloadPercent"] = asStr(e.t, d["downloadState"]), asStr(e.t, d["downloadPercent"])
	}
	return out
}

func stringFields(o map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range o {
		switch x := v.(type) {
		case string:
			out[k] = x
		case bool, float64:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}

// addVersion calls addKubernetesSupportedVersion and returns the version.
func (e *testEnv) addVersion(params url.Values) map[string]string {
	e.t.Helper()
	status, body := e.adminCall("addKubernetesSupportedVersion", params)
	if status != 200 {
		e.t.Fatalf("addKubernetesSupportedVersion %v: %d %v", params, status, body)
	}
	return stringFields(asObj(e.t, inner(e.t, body, "addkubernetessupportedversionresponse")["kubernetessupportedversion"]))
}

// waitISO polls the version until its ISO is no longer Creating.
func (e *testEnv) waitISO(versionID string) map[string]string {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		v := e.versionFields(versionID)
		if v["isostate"] != model.ISOCreating {
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the ISO of %s is still %s", versionID, v["isostate"])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func newVersionParams(semver, url string, extra ...string) url.Values {
	v := map[string][]string{"semanticversion": {semver}, "mincpunumber": {"2"}, "minmemory": {"2048"}, "url": {url}}
	for i := 0; i+1 < len(extra); i += 2 {
		v[extra[i]] = []string{extra[i+1]}
	}
	return v
}

// An added version's ISO is downloaded over time: Creating while the image
// store reports progress, then Ready; a cluster can use the version only
// then.
func TestAddVersionDownloadsItsISO(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{ISODownloadDuration: 500 * time.Millisecond})
	const isoURL = "https://download.example.org/cks/setup-1.35.2.iso"
	v := e.addVersion(newVersionParams("1.35.2", isoURL, "zoneid", e.info.ZoneID, "checksum", "{SHA-256}abc"))
	if v["name"] != "v1.35.2-"+seedZoneName || v["state"] != "Enabled" || v["isostate"] != model.ISOCreating ||
		v["zoneid"] != e.info.ZoneID || v["mincpunumber"] != "2" || v["supportsha"] != "true" {
		t.Fatalf("the new version: %v", v)
	}
	iso := e.isoFields(v["isoid"])
	if iso["name"] != v["name"]+"-Kubernetes-Binaries-ISO" || iso["isready"] != "false" || iso["url"] != isoURL ||
		iso["account"] != "system" || iso["bootable"] != "false" || iso["ispublic"] != "true" {
		t.Fatalf("its ISO: %v", iso)
	}
	if iso["status"] != "Processing" && !strings.HasSuffix(iso["status"], "% Downloaded") {
		t.Fatalf("the ISO's status while it downloads: %q", iso["status"])
	}
	p := e.createParams("too-early", 1)
	p.SetKubernetesversionid(v["id"])
	if _, err := e.cs.Kubernetes.CreateKubernetesCluster(p); err == nil || !strings.Contains(err.Error(), "is not in Ready state") {
		t.Fatalf("a cluster of a version whose ISO downloads: %v", err)
	}

	if got := e.waitISO(v["id"]); got["isostate"] != model.ISOReady {
		t.Fatalf("after the download the ISO is %s", got["isostate"])
	}
	iso = e.isoFields(v["isoid"])
	if iso["isready"] != "true" || iso["status"] != "Successfully Installed" || iso["downloadState"] != model.DownloadDone ||
		iso["downloadPercent"] != "100" {
		t.Fatalf("the downloaded ISO: %v", iso)
	}
	p = e.createParams("on-time", 1)
	p.SetKubernetesversionid(v["id"])
	e.createCluster(p)
}

// A download that fails leaves the ISO Allocated, and listIsos gives the
// image store's error string as its status.
func TestAddVersionDownloadFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{ISODownloadDuration: 200 * time.Millisecond})
	const isoURL = "https://download.example.org/cks/missing.iso"
	const reason = "HTTP Server returned 404 (expected 200 OK)"
	if err := e.sim.SetISODownload(isoURL, ISODownload{Error: reason}); err != nil {
		t.Fatal(err)
	}
	v := e.addVersion(newVersionParams("1.35.2", isoURL))
	if v["name"] != "v1.35.2" || v["zoneid"] != "" {
		t.Fatalf("a version for every zone: %v", v)
	}
	if got := e.waitISO(v["id"]); got["isostate"] != model.ISOAllocated {
		t.Fatalf("after a failed download the ISO is %s", got["isostate"])
	}
	iso := e.isoFields(v["isoid"])
	if iso["isready"] != "false" || iso["status"] != reason || iso["downloadState"] != model.DownloadError {
		t.Fatalf("the failed ISO: %v", iso)
	}
	// The tenant sees the public ISO, not its download status.
	status, body := e.rawCall(e.info.TenantAPIKey, e.info.TenantSecretKey, "listIsos", url.Values{"id": {v["isoid"]}})
	list, _ := inner(t, body, "listisosresponse")["iso"].([]any)
	if status != 200 || len(list) != 1 || asObj(t, list[0])["status"] != nil {
		t.Fatalf("the tenant's listIsos: %d %v", status, body)
	}
}

func TestAddVersionDirectDownloadIsReadyAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	v := e.addVersion(newVersionParams("1.35.2", "https://download.example.org/a.iso", "directdownload", "true", "name", "direct"))
	if v["isostate"] != model.ISOReady || v["directdownload"] != "true" || v["name"] != "direct" {
		t.Fatalf("a direct download version: %v", v)
	}
	if iso := e.isoFields(v["isoid"]); iso["status"] != "Bypassed Secondary Storage" || iso["isready"] != "true" {
		t.Fatalf("its ISO: %v", iso)
	}
}

func TestAddVersionValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	const u = "https://download.example.org/a.iso"
	for _, tc := range []struct {
		params url.Values
		code   int
		text   string
	}{
		{url.Values{"mincpunumber": {"2"}, "minmemory": {"2048"}}, 431, "missing parameter semanticversion"},
		{newVersionParams("v1.35.2", u), 431, "Invalid version format. Semantic version needed"},
		{newVersionParams("1.35.2", u, "mincpunumber", "1"), 431, "Invalid value for mincpunumber parameter. Minimum 2 vCPUs required."},
		{newVersionParams("1.35.2", u, "minmemory", "1024"), 431, "Invalid value for minmemory parameter. Minimum 2048MB memory required"},
		{newVersionParams("1.35", u), 431, "Invalid version format, 1.35. Semantic version should be specified in MAJOR.MINOR.PATCH format"},
		{newVersionParams("1.10.3", u), 431, "cannot be added as 1.11.0 is minimum version"},
		{newVersionParams("1.35.2", ""), 431, "Invalid URL for ISO specified, null"},
		{newVersionParams("1.35.2", u, "mincpunumber", "two"), 431, "invalid value. Invalid parameter mincpunumber"},
	} {
		status, body := e.adminCall("addKubernetesSupportedVersion", tc.params)
		if status != tc.code || !strings.Contains(errorText(t, body), tc.text) {
			t.Errorf("%v: %d %v, want %d %q", tc.params, status, body, tc.code, tc.text)
		}
	}
	status, body := e.rawCall(e.info.TenantAPIKey, e.info.TenantSecretKey, "addKubernetesSupportedVersion", newVersionParams("1.35.2", u))
	if status != 432 {
		t.Errorf("a tenant adds a version: %d %v", status, body)
	}
}

// updateKubernetesSupportedVersion takes the state names exactly; a
// Disabled version is hidden from users and refused to clusters.
func TestUpdateVersionState(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	id := e.info.KubernetesVersions["1.34.2"]
	status, body := e.adminCall("updateKubernetesSupportedVersion", url.Values{"id": {id}, "state": {"disabled"}})
	if status != 431 || !strings.Contains(errorText(t, body), "Invalid value for state parameter") {
		t.Fatalf("state disabled: %d %v", status, body)
	}
	status, body = e.adminCall("updateKubernetesSupportedVersion", url.Values{"id": {id}, "state": {"Disabled"}})
	if status != 200 || asObj(t, inner(t, body, "updatekubernetessupportedversionresponse")["kubernetessupportedversion"])["state"] != "Disabled" {
		t.Fatalf("state Disabled: %d %v", status, body)
	}
	_, body = e.rawCall(e.info.TenantAPIKey, e.info.TenantSecretKey, "listKubernetesSupportedVersions", url.Values{"id": {id}})
	if list, _ := inner(t, body, "listkubernetessupportedversionsresponse")["kubernetessupportedversion"].([]any); len(list) != 0 {
		t.Fatalf("the tenant lists a Disabled version: %v", body)
	}
	p := e.createParams("disabled", 1)
	p.SetKubernetesversionid(id)
	if _, err := e.cs.Kubernetes.CreateKubernetesCluster(p); err == nil || !strings.Contains(err.Error(), "is in Disabled state") {
		t.Fatalf("a cluster of a Disabled version: %v", err)
	}
	if status, body := e.adminCall("updateKubernetesSupportedVersion", url.Values{"id": {id}, "state": {"Enabled"}}); status != 200 {
		t.Fatalf("state Enabled: %d %v", status, body)
	}
}

// deleteKubernetesSupportedVersion's job refuses while a cluster uses the
// version, then deletes it with its ISO once the cluster is gone.
func TestDeleteVersionInUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	versionID := e.info.KubernetesVersions["1.33.13"]
	isoID := e.versionFields(versionID)["isoid"]
	clusterID := e.createCluster(e.createParams("user", 1))
	r, err := e.cs.Kubernetes.DeleteKubernetesSupportedVersion(e.cs.Kubernetes.NewDeleteKubernetesSupportedVersionParams(versionID))
	if err != nil {
		t.Fatal(err)
	}
	code, text := e.mustFail(r.JobID)
	if want := "Unable to delete Kubernetes version ID: " + versionID + ". Existing clusters currently using the version."; code != 530 || text != want {
		t.Fatalf("delete in use: %d %q, want 530 %q", code, text, want)
	}
	if job := e.waitJob(r.JobID); job.Jobinstancetype != "KubernetesSupportedVersion" || job.Jobinstanceid != versionID {
		t.Fatalf("the job names %s %s", job.Jobinstancetype, job.Jobinstanceid)
	}
	d, err := e.cs.Kubernetes.DeleteKubernetesCluster(e.cs.Kubernetes.NewDeleteKubernetesClusterParams(clusterID))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(d.JobID)
	r, err = e.cs.Kubernetes.DeleteKubernetesSupportedVersion(e.cs.Kubernetes.NewDeleteKubernetesSupportedVersionParams(versionID))
	if err != nil {
		t.Fatal(err)
	}
	e.mustSucceed(r.JobID)
	for command, id := range map[string]string{"listKubernetesSupportedVersions": versionID, "listIsos": isoID} {
		if status, body := e.adminCall(command, url.Values{"id": {id}}); status != 431 {
			t.Errorf("%s of the deleted %s: %d %v", command, id, status, body)
		}
	}
}

func errorText(t *testing.T, body map[string]any) string {
	t.Helper()
	for _, v := range body {
		if o, ok := v.(map[string]any); ok {
			if s, ok := o["errortext"].(string); ok {
				return s
			}
		}
	}
	return ""
}
