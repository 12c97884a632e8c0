package sharedreads

import (
	"context"
	"reflect"
	"testing"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// reads are the API's methods that change nothing: they may be served from,
// or pass by, the shared lists. Every other method must drop them.
var reads = map[string]bool{
	"GetKubernetesCluster": true, "ListKubernetesClusters": true, "GetKubernetesClusterConfig": true,
	"GetVirtualMachine": true, "GetTemplate": true, "ListVirtualMachines": true,
	"ListFirewallRules": true, "ListPortForwardingRules": true, "ListLoadBalancerRules": true,
	"ListNetworkACLs": true, "ListNetworkACLLists": true, "ListPublicIPAddresses": true, "ListNetworks": true,
	"ListKubernetesSupportedVersions": true, "ListZones": true, "ListServiceOfferings": true, "ListProjects": true,
	"CloudStackVersion": true, "ListAsyncJobs": true,
}

// TestEveryWriteDropsTheSharedLists calls each method of the API that is
// not a read, over an API that fails every call (a nil one), and checks
// that the shared lists were dropped: a write method added to
// cloudstack.API and not to writes.go fails here.
func TestEveryWriteDropsTheSharedLists(t *testing.T) {
	api := New(nil, Options{})
	typ := reflect.TypeFor[cloudstack.API]()
	writes := 0
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		if reads[m.Name] {
			continue
		}
		writes++
		before := api.lists.generation
		callIgnoringPanic(reflect.ValueOf(api).MethodByName(m.Name))
		if got := api.lists.generation; got < before+2 {
			t.Errorf("%s does not drop the shared lists before and after it (generation %d → %d)", m.Name, before, got)
		}
	}
	if writes < 19 {
		t.Fatalf("found %d write methods, want at least the 19 of writes.go", writes)
	}
}

// callIgnoringPanic calls fn with zero arguments (a background context
// first); the nil API below panics, after the wrapper did its part.
func callIgnoringPanic(fn reflect.Value) {
	defer func() { _ = recover() }()
	args := make([]reflect.Value, fn.Type().NumIn())
	for i := range args {
		args[i] = reflect.Zero(fn.Type().In(i))
	}
	args[0] = reflect.ValueOf(context.Background())
	fn.Call(args)
}
