package drift

import (
	"slices"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
)

// offeringInput is cleanInput with the control VM on the control offering
// and the workers on the cluster's service offering, which the worker role
// uses since it records none of its own.
func offeringInput() Input {
	in := cleanInput()
	in.Cluster.ServiceOfferingID = "off-small"
	in.Cluster.RoleOfferingIDs = map[naming.Role]string{naming.RoleControl: "off-medium"}
	in.Cluster.OfferingNames = map[string]string{"off-small": "Small", "off-medium": "Medium", "off-large": "Large"}
	for i := range in.Map {
		in.Map[i].OfferingID = "off-small"
	}
	in.Map[0].OfferingID = "off-medium"
	return in
}

func TestOfferingsInSync(t *testing.T) {
	t.Parallel()
	assertKinds(t, Compare(offeringInput()))
}

func TestVMResizedOutOfBandIsOfferingMismatch(t *testing.T) {
	t.Parallel()
	in := offeringInput()
	in.Map[2].OfferingID = "off-large"
	r := Compare(in)
	assertKinds(t, r, KindVMOfferingMismatch)
	f := r.Findings[0]
	if f.VMID != "493" || f.VMName != worker2Name {
		t.Fatalf("finding %+v", f)
	}
	for _, want := range []string{"VM " + worker2Name, "cluster test", "runs service offering Large (off-large)",
		"not the worker offering Small (off-small)"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message lacks %q: %s", want, f.Message)
		}
	}

	// The control role has an offering of its own.
	in = offeringInput()
	in.Map[0].OfferingID = "off-small"
	if r := Compare(in); len(r.Findings) != 1 || !strings.Contains(r.Findings[0].Message, "not the control offering Medium (off-medium)") {
		t.Fatalf("control VM on the service offering: %+v", r.Findings)
	}
}

// External nodes bring their own VMs, and a cluster or VM that reports no
// offering says nothing.
func TestOfferingsNotCompared(t *testing.T) {
	t.Parallel()
	in := offeringInput()
	in.Map[2].IsExternal = true
	in.Map[2].OfferingID = "off-large"
	if r := Compare(in); slices.Contains(kinds(r), KindVMOfferingMismatch) {
		t.Fatalf("external node compared: %+v", r.Findings)
	}

	in = offeringInput()
	in.Cluster.ServiceOfferingID = ""
	in.Map[1].OfferingID = "off-large" // the worker role has no offering to compare with
	assertKinds(t, Compare(in))

	in = offeringInput()
	in.Map[1].OfferingID = ""
	assertKinds(t, Compare(in))
}

// Etcd VMs are compared with the etcd offering.
func TestEtcdVMOfferings(t *testing.T) {
	t.Parallel()
	in := etcdClusterInput("Running", 1, "w1")
	in.Rules = nil
	in.Cluster.ServiceOfferingID = "off-small"
	in.Cluster.RoleOfferingIDs = map[naming.Role]string{naming.RoleEtcd: "off-medium"}
	for i := range in.Map {
		in.Map[i].OfferingID = "off-small"
		if in.Map[i].IsEtcd {
			in.Map[i].OfferingID = "off-medium"
		}
	}
	assertKinds(t, Compare(in))
	in.Map[1].OfferingID = "off-small"
	r := Compare(in)
	assertKinds(t, r, KindVMOfferingMismatch)
	if f := r.Findings[0]; f.VMID != "etcd2" || !strings.Contains(f.Message, "not the etcd offering off-medium") {
		t.Fatalf("finding %+v", f)
	}
}
