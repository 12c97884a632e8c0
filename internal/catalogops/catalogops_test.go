package catalogops_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

const isoURL = "https://download.example.org/cks/setup-1.35.2.iso"

func newEngine(env *simtest.Env) *catalogops.Engine {
	return catalogops.New(env.API, catalogops.Options{
		DownloadPoll:     20 * time.Millisecond,
		DownloadProgress: time.Nanosecond,
		Wait:             cloudstack.WaitOptions{Unit: 5 * time.Millisecond, MaxInterval: 20 * time.Millisecond},
	})
}

func addParams(env *simtest.Env) cloudstack.AddVersionParams {
	return cloudstack.AddVersionParams{SemanticVersion: "1.35.2", ZoneID: env.Info.ZoneID, URL: isoURL, MinCPUNumber: 2, MinMemory: 2048}
}

// A version is added, its ISO's progress reported while it downloads, and
// the wait returns it Ready.
func TestAddVersionAndWaitReady(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t, simtest.WithISODownloadDuration(500*time.Millisecond))
	e := newEngine(env)
	res, err := e.AddVersion(t.Context(), addParams(env))
	if err != nil || res.Adopted || res.Version.ISOState != "Creating" {
		t.Fatalf("add: %+v, %v", res, err)
	}
	var reports []catalogops.Progress
	v, err := e.WaitVersionReady(t.Context(), res.Version.ID, func(p catalogops.Progress) { reports = append(reports, p) })
	if err != nil || v.ISOState != "Ready" {
		t.Fatalf("wait: %+v, %v", v, err)
	}
	if len(reports) < 2 || reports[0].State != "Creating" {
		t.Fatalf("progress reports: %+v", reports)
	}
	sawPercent := false
	for _, r := range reports {
		sawPercent = sawPercent || strings.HasSuffix(r.Status, "% Downloaded") && r.Percent > 0
	}
	if !sawPercent {
		t.Fatalf("no report gave the percentage: %+v", reports)
	}
}

// A download the image store fails ends the wait with its reason.
func TestWaitVersionReadyReportsTheDownloadFailure(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t, simtest.WithISODownloadDuration(200*time.Millisecond))
	const reason = "HTTP Server returned 404 (expected 200 OK)"
	if err := env.Sim.SetISODownload(isoURL, simulator.ISODownload{Error: reason}); err != nil {
		t.Fatal(err)
	}
	e := newEngine(env)
	res, err := e.AddVersion(t.Context(), addParams(env))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.WaitVersionReady(t.Context(), res.Version.ID, nil)
	var failed *catalogops.DownloadFailedError
	if !errors.As(err, &failed) || failed.Reason != reason || failed.VersionID != res.Version.ID {
		t.Fatalf("wait: %v", err)
	}
}

func TestWaitVersionReadyTimesOut(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t, simtest.WithISODownloadDuration(time.Hour))
	e := newEngine(env)
	res, err := e.AddVersion(t.Context(), addParams(env))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	_, err = e.WaitVersionReady(ctx, res.Version.ID, nil)
	var timeout *catalogops.DownloadTimeoutError
	if !errors.As(err, &timeout) || timeout.Last.State != "Creating" || !strings.Contains(err.Error(), "goes on downloading") {
		t.Fatalf("wait: %v", err)
	}
}

// An add whose answer is lost is adopted when exactly one new version
// matches it; the add is never sent twice.
func TestAddVersionAdoptsALostAnswer(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	env.Sim.LoseNextResponses("addKubernetesSupportedVersion", 1)
	res, err := newEngine(env).AddVersion(t.Context(), addParams(env))
	if err != nil || !res.Adopted || res.Version.SemanticVersion != "1.35.2" || res.LostErr == nil {
		t.Fatalf("add: %+v, %v", res, err)
	}
	if n := env.Sim.CallCounts()["addKubernetesSupportedVersion"]; n != 1 {
		t.Fatalf("addKubernetesSupportedVersion called %d times", n)
	}
}

func TestAddVersionRefused(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	p := addParams(env)
	p.MinCPUNumber = 1
	_, err := newEngine(env).AddVersion(t.Context(), p)
	var refusedErr *catalogops.RefusedError
	if !errors.As(err, &refusedErr) || !strings.Contains(err.Error(), "Minimum 2 vCPUs required") {
		t.Fatalf("add: %v", err)
	}
}

// DeleteVersion names the clusters that use the version and sends nothing;
// once they are gone it deletes it, and a second delete is no error.
func TestDeleteVersionInUse(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	e := newEngine(env)
	id := env.VersionID("1.33.13")
	cluster := env.NewCluster(cloudstack.CreateClusterParams{Name: "user"})
	err := e.DeleteVersion(t.Context(), id)
	var inUse *catalogops.InUseError
	if !errors.As(err, &inUse) || len(inUse.Clusters) != 1 || inUse.Clusters[0].Name != "user" ||
		!strings.Contains(err.Error(), "user ("+cluster.ID) {
		t.Fatalf("delete in use: %v", err)
	}
	if n := env.Sim.CallCounts()["deleteKubernetesSupportedVersion"]; n != 0 {
		t.Fatalf("deleteKubernetesSupportedVersion sent %d times", n)
	}
	ref, err := env.API.DeleteKubernetesCluster(t.Context(), cluster.ID)
	if err == nil {
		err = env.WaitJob(ref.JobID)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteVersion(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteVersion(t.Context(), id); err != nil {
		t.Fatalf("a second delete: %v", err)
	}
}

// A project's cluster counts as a user too.
func TestVersionUsersSeeProjects(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	env.NewCluster(cloudstack.CreateClusterParams{Name: "team", Ownership: cloudstack.Ownership{ProjectID: env.Info.ProjectID}})
	users, err := newEngine(env).VersionUsers(t.Context(), env.VersionID("1.33.13"))
	if err != nil || len(users) != 1 || users[0].ProjectID != env.Info.ProjectID {
		t.Fatalf("users: %+v, %v", users, err)
	}
}

func TestRegisterCNI(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	e := newEngine(env)
	content := strings.TrimRight(base64.StdEncoding.EncodeToString([]byte("calico: {}")), "=")
	p := cloudstack.RegisterCNIParams{Name: "calico", Config: content, Params: []string{"POD_CIDR"}}
	env.Sim.LoseNextResponses("registerCniConfiguration", 1)
	res, err := e.RegisterCNI(t.Context(), p)
	if err != nil || !res.Adopted || !catalogops.SameUserData(res.Config.UserData, content) {
		t.Fatalf("register with a lost answer: %+v, %v", res, err)
	}
	p.Name = "CALICO"
	_, err = e.RegisterCNI(t.Context(), p)
	var taken *catalogops.NameTakenError
	if !errors.As(err, &taken) || taken.Existing.ID != res.Config.ID {
		t.Fatalf("a second calico: %v", err)
	}
}

// DeleteCNI refuses while a cluster refers to the configuration: CloudStack
// would delete it and then fail every list of clusters.
func TestDeleteCNIInUse(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	e := newEngine(env)
	env.NewCluster(cloudstack.CreateClusterParams{Name: "cni", ClusterExtras: cloudstack.ClusterExtras{CNIConfigurationID: env.Info.CNIConfigurationID}})
	err := e.DeleteCNI(t.Context(), env.Info.CNIConfigurationID, cloudstack.Ownership{})
	var inUse *catalogops.InUseError
	if !errors.As(err, &inUse) || !strings.Contains(err.Error(), "fail every list of Kubernetes clusters") {
		t.Fatalf("delete in use: %v", err)
	}
	if _, err := env.API.ListKubernetesClusters(t.Context(), cloudstack.ListClustersParams{}); err != nil {
		t.Fatalf("the clusters no longer list: %v", err)
	}
}

func TestSameUserData(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"YWI=", "YWI", true},
		{"YWI=", "Y W I =", true},
		{"Pz8/", "Pz8_", true},
		{"YWI=", "YWM=", false},
		{"YWI=", "not base64!", false},
	} {
		if got := catalogops.SameUserData(tc.a, tc.b); got != tc.want {
			t.Errorf("SameUserData(%q, %q) = %t", tc.a, tc.b, got)
		}
	}
}
