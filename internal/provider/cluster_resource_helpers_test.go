package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/vmmap"
)

func TestCreateParams(t *testing.T) {
	t.Parallel()
	m := clusterResourceModel{}
	m.Name = types.StringValue("c")
	m.ZoneID = types.StringValue("z")
	m.KubernetesVersionID = types.StringValue("v")
	m.ServiceOfferingID = types.StringUnknown()
	m.ControlOfferingID = types.StringValue("big")
	m.WorkerOfferingID = types.StringUnknown()
	m.EtcdOfferingID = types.StringNull()
	m.Description = types.StringUnknown()
	m.ControlNodes = types.Int64Value(1)
	m.EtcdNodes = types.Int64Value(3)
	m.Size = types.Int64Unknown()
	m.NodeRootDiskSize = types.Int64Null()
	m.Account, m.DomainID, m.ProjectID = types.StringUnknown(), types.StringUnknown(), types.StringValue("p")
	as := autoscalingModel{Enabled: types.BoolValue(true), MinSize: types.Int64Value(2), MaxSize: types.Int64Value(5)}

	p := createParams(m, as)
	if p.Size != 2 {
		t.Errorf("with the autoscaler on, the cluster must start with min_size workers, got size %d", p.Size)
	}
	if p.ServiceOfferingID != "" || p.Description != "" || p.Account != "" {
		t.Errorf("unknown values must not be sent: %+v", p)
	}
	if len(p.NodeOfferings) != 1 || p.NodeOfferings["control"] != "big" {
		t.Errorf("node offerings = %v, want only control", p.NodeOfferings)
	}
	if p.ProjectID != "p" || p.EtcdNodes != 3 || p.NodeRootDiskSize != 0 {
		t.Errorf("params = %+v", p)
	}
}

func TestDescribeFailure(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err     error
		summary string
		detail  string
	}{
		{&clusterops.HazardError{ClusterID: "c", OptIn: clusterops.OptInMoveUserRules}, "Unsafe Cluster Scale", "Set recreate_user_hazard_rules = true"},
		{&vmmap.Inconsistency{ClusterID: "c", NodeCount: 2, Workers: 1, Rows: 5, Expected: 6}, "Cluster Needs an Administrator", "node_count = 1"},
		{fmt.Errorf("waiting: %w", context.DeadlineExceeded), "Cluster Operation Timed Out", "raise timeouts"},
		{errors.New("job failed"), "Cluster Operation Failed", "Scaling failed: job failed."},
	}
	for _, tc := range cases {
		summary, detail := describeFailure("Scaling", tc.err)
		if summary != tc.summary || !strings.Contains(detail, tc.detail) {
			t.Errorf("describeFailure(%v) = %q, %q; want %q containing %q", tc.err, summary, detail, tc.summary, tc.detail)
		}
	}
}

func TestAddReportWarnings(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	addReportWarnings(&diags, clusterops.Report{ClusterID: "c"})
	if len(diags) != 0 {
		t.Fatalf("an empty report gave %v", diags)
	}
	addReportWarnings(&diags, clusterops.Report{ClusterID: "c", Steps: []clusterops.Step{
		{Kind: clusterops.StepScaled, Message: "scaled to 1"},
		{Kind: clusterops.StepHardened, Message: "created etcd SSH firewall range 50000-50002"},
		{Kind: clusterops.StepRepaired, Message: "created missing port forward 2222→22"},
	}})
	if len(diags) != 1 || diags.WarningsCount() != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	detail := diags[0].Detail()
	if !strings.Contains(detail, "created etcd SSH firewall range 50000-50002") || !strings.Contains(detail, "2222→22") ||
		strings.Contains(detail, "scaled to 1") {
		t.Errorf("warning detail %q", detail)
	}

	// What the provider could not do gets its own warning.
	var blocked diag.Diagnostics
	addReportWarnings(&blocked, clusterops.Report{ClusterID: "c", Steps: []clusterops.Step{
		{Kind: clusterops.StepRepaired, Message: "created missing port forward 2222→22"},
		{Kind: clusterops.StepBlocked, Message: "could not delete leftover etcd SSH firewall rule r9"},
	}})
	if len(blocked) != 2 || blocked[1].Summary() != "Cluster SSH Rules Need Attention" ||
		!strings.Contains(blocked[1].Detail(), "rule r9") || strings.Contains(blocked[0].Detail(), "rule r9") {
		t.Fatalf("blocked steps not separated: %v", blocked)
	}
}

// TestAddCreateReport: after a create, the routine rule work is logged and
// only the rest warns.
func TestAddCreateReport(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	addCreateReport(context.Background(), &diags, clusterops.Report{ClusterID: "c", Steps: []clusterops.Step{
		{Kind: clusterops.StepHardened, Message: "created etcd SSH firewall range 50000-50002", Routine: true},
		{Kind: clusterops.StepRepaired, Message: "created missing node SSH firewall range from 10.0.0.0/8", Routine: true},
	}})
	if len(diags) != 0 {
		t.Fatalf("routine steps after a create warn: %v", diags)
	}
	addCreateReport(context.Background(), &diags, clusterops.Report{ClusterID: "c", Steps: []clusterops.Step{
		{Kind: clusterops.StepHardened, Message: "created etcd SSH firewall range 50000-50002", Routine: true},
		{Kind: clusterops.StepRepaired, Message: "created missing port forward 2222→22"},
	}})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail(), "2222→22") || strings.Contains(diags[0].Detail(), "50000-50002") {
		t.Fatalf("want one warning with the repair alone, got %v", diags)
	}
}

func TestClusterAddress(t *testing.T) {
	t.Parallel()
	if got := clusterAddress(&cloudstack.Cluster{IPAddress: "1.2.3.4", Endpoint: "https://5.6.7.8:6443/"}); got != "1.2.3.4" {
		t.Errorf("isolated: %q", got)
	}
	if got := clusterAddress(&cloudstack.Cluster{Endpoint: "https://5.6.7.8:6443/"}); got != "5.6.7.8" {
		t.Errorf("VPC: %q", got)
	}
	if got := clusterAddress(&cloudstack.Cluster{}); got != "" {
		t.Errorf("no address: %q", got)
	}
}

func TestRefreshedAutoscaling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	on := &cloudstack.Cluster{AutoscalingEnabled: true, MinSize: 1, MaxSize: 4}
	off := &cloudstack.Cluster{}

	got, diags := refreshedAutoscaling(ctx, types.ObjectNull(autoscalingAttrTypes), off)
	if diags.HasError() || !got.IsNull() {
		t.Errorf("off without prior object: %v %v", got, diags)
	}
	got, _ = refreshedAutoscaling(ctx, types.ObjectNull(autoscalingAttrTypes), on)
	if want := autoscalingObject(autoscalingModel{Enabled: types.BoolValue(true), MinSize: types.Int64Value(1), MaxSize: types.Int64Value(4)}); !got.Equal(want) {
		t.Errorf("enabled out of band: %v, want %v", got, want)
	}
	prior := autoscalingObject(autoscalingModel{Enabled: types.BoolValue(false), MinSize: types.Int64Value(2), MaxSize: types.Int64Value(3)})
	got, _ = refreshedAutoscaling(ctx, prior, off)
	if !got.Equal(prior) {
		t.Errorf("disabled keeps the configured range: %v, want %v", got, prior)
	}
}
