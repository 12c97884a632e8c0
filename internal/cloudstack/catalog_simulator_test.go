package cloudstack_test

import (
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/simtest"
)

// A version's life through the client: the add and update responses are
// decoded (cloudstack-go leaves the update's empty), the ISO is read while
// and after it downloads, the delete job removes both.
func TestKubernetesVersionCalls(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t, simtest.WithISODownloadDuration(300*time.Millisecond))
	ctx := t.Context()
	const url = "https://download.example.org/setup-1.35.2.iso"
	v, err := env.API.AddKubernetesSupportedVersion(ctx, cloudstack.AddVersionParams{SemanticVersion: "1.35.2",
		ZoneID: env.Info.ZoneID, URL: url, MinCPUNumber: 2, MinMemory: 2048})
	if err != nil {
		t.Fatal(err)
	}
	if v.ID == "" || v.Name != "v1.35.2-sim-zone-1" || v.ISOState != "Creating" || v.ISOID == "" || v.ZoneID != env.Info.ZoneID {
		t.Fatalf("added: %+v", v)
	}
	iso, err := env.API.GetISO(ctx, v.ISOID)
	if err != nil || iso.IsReady || iso.Name != v.Name+"-Kubernetes-Binaries-ISO" {
		t.Fatalf("the ISO while it downloads: %+v, %v", iso, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for v.ISOState != "Ready" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if v, err = env.API.GetKubernetesSupportedVersion(ctx, v.ID); err != nil {
			t.Fatal(err)
		}
	}
	if iso, err = env.API.GetISO(ctx, v.ISOID); err != nil || !iso.IsReady || iso.Status != "Successfully Installed" ||
		!slices.Equal(iso.DownloadStates, []string{"DOWNLOADED"}) || iso.DownloadPercent != 100 {
		t.Fatalf("the downloaded ISO: %+v, %v", iso, err)
	}
	updated, err := env.API.UpdateKubernetesSupportedVersion(ctx, v.ID, "Disabled")
	if err != nil || updated.ID != v.ID || updated.State != "Disabled" || updated.SemanticVersion != "1.35.2" {
		t.Fatalf("updated: %+v, %v", updated, err)
	}
	ref, err := env.API.DeleteKubernetesSupportedVersion(ctx, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.WaitJob(ref.JobID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.API.GetKubernetesSupportedVersion(ctx, v.ID); !cloudstack.IsNotFound(err) {
		t.Fatalf("the deleted version: %v", err)
	}
	if _, err := env.API.GetISO(ctx, v.ISOID); !cloudstack.IsNotFound(err) {
		t.Fatalf("the deleted ISO: %v", err)
	}
}

// A CNI configuration through the client: parameters go as a comma list
// and come back as names; a project's configuration is found by id.
func TestCNIConfigurationCalls(t *testing.T) {
	t.Parallel()
	env := simtest.Start(t)
	ctx := t.Context()
	content := base64.StdEncoding.EncodeToString([]byte("calico: {}\n"))
	cfg, err := env.API.RegisterCniConfiguration(ctx, cloudstack.RegisterCNIParams{Name: "calico", Config: content,
		Params: []string{"POD_CIDR", "MTU"}, Ownership: cloudstack.Ownership{ProjectID: env.Info.ProjectID}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ID == "" || cfg.UserData != content || !slices.Equal(cfg.Params, []string{"POD_CIDR", "MTU"}) || cfg.ProjectID != env.Info.ProjectID {
		t.Fatalf("registered: %+v", cfg)
	}
	got, err := env.API.GetCniConfiguration(ctx, cfg.ID)
	if err != nil || got.ID != cfg.ID || got.Name != "calico" {
		t.Fatalf("by id: %+v, %v", got, err)
	}
	if err := env.API.DeleteCniConfiguration(ctx, cfg.ID, cloudstack.Ownership{ProjectID: env.Info.ProjectID}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.API.GetCniConfiguration(ctx, cfg.ID); !cloudstack.IsNotFound(err) {
		t.Fatalf("the deleted configuration: %v", err)
	}
}
