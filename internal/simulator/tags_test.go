package simulator

import (
	"maps"
	"strings"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// vmTags reads a VM's tags through listVirtualMachines.
func (e *testEnv) vmTags(vmID string) map[string]string {
	e.t.Helper()
	v, _, err := e.cs.VirtualMachine.GetVirtualMachineByID(vmID)
	if err != nil {
		e.t.Fatalf("reading VM %s: %v", vmID, err)
	}
	out := map[string]string{}
	for _, t := range v.Tags {
		out[t.Key] = t.Value
	}
	return out
}

// createTags and deleteTags on a VM as TaggedResourceManagerImpl does them:
// a key the VM has, or an empty value, fails the job and writes nothing;
// deleteTags matches keys and values without regard to case.
func TestTagsOfAVM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{DisableScanner: true})
	vmID := e.deployVM(e.info.IsolatedNetworkID, e.info.NodeTemplateID, "tagged")
	tag := func(tags map[string]string) string {
		t.Helper()
		r, err := e.cs.Resourcetags.CreateTags(e.cs.Resourcetags.NewCreateTagsParams([]string{vmID}, "UserVm", tags))
		if err != nil {
			t.Fatalf("createTags: %v", err)
		}
		return r.JobID
	}
	e.mustSucceed(tag(map[string]string{"team": "gpu", "owner": "ops"}))

	if code, text := e.mustFail(tag(map[string]string{"new": "x", "team": "other"})); code != wire.CodeInternalError ||
		!strings.Contains(text, "tag team already on UserVm") {
		t.Fatalf("a key the VM has: %d %s", code, text)
	}
	if code, text := e.mustFail(tag(map[string]string{"empty": ""})); code != wire.CodeParamError ||
		!strings.Contains(text, "Value for the key empty is either null or empty") {
		t.Fatalf("an empty value: %d %s", code, text)
	}
	if got, want := e.vmTags(vmID), map[string]string{"team": "gpu", "owner": "ops"}; !maps.Equal(got, want) {
		t.Fatalf("tags after the failed jobs %v, want %v", got, want)
	}

	p := e.cs.Resourcetags.NewDeleteTagsParams([]string{vmID}, "UserVm")
	p.SetTags(map[string]string{"TEAM": "GPU"})
	r, err := e.cs.Resourcetags.DeleteTags(p)
	if err != nil {
		t.Fatalf("deleteTags: %v", err)
	}
	e.mustSucceed(r.JobID)
	if got, want := e.vmTags(vmID), map[string]string{"owner": "ops"}; !maps.Equal(got, want) {
		t.Fatalf("tags after deleteTags %v, want %v", got, want)
	}
}
