package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/catalogops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterops"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/driftcheck"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/sharedreads"
)

// providerData is what Configure hands to every resource and data source:
// the domain engines, which make every CloudStack call. It holds no client
// of its own, so the Terraform glue cannot call CloudStack directly
// (TestProviderMakesNoDirectCloudStackCalls checks it).
type providerData struct {
	clusters *clusterops.Engine
	drift    *driftcheck.Checker
	catalog  *catalogops.Engine
	// deletions are the clusters this run's plan deletes
	// (planned_deletions.go).
	deletions *plannedDeletions
}

func newProviderData(s settings) (*providerData, error) {
	client, err := cloudstack.New(cloudstack.Config{
		APIURL:         s.apiURL,
		APIKey:         s.apiKey,
		SecretKey:      s.secretKey,
		Insecure:       s.insecure,
		CAFile:         s.caFile,
		HTTPGetOnly:    s.httpGetOnly,
		RequestTimeout: s.requestTimeout,
	})
	if err != nil {
		return nil, err
	}
	// One provider process serves one plan or one apply: the refreshes of
	// its resources and data sources share their lists (readShared).
	reads := sharedreads.New(client, sharedreads.Options{ShareFrom: sharedReadsFrom})
	return &providerData{
		clusters:  newEngine(reads, s.etcdSSHStartPort),
		drift:     &driftcheck.Checker{API: reads, EtcdSSHStartPort: s.etcdSSHStartPort},
		catalog:   newCatalogEngine(client),
		deletions: &plannedDeletions{},
	}, nil
}

// driftChecker is the drift checker over the provider's client.
func (d *providerData) driftChecker() *driftcheck.Checker { return d.drift }

// configuredData converts the ProviderData a resource or data source receives.
// It returns nil without error while the provider is not configured yet, which
// happens during validation and when provider values are unknown at plan time.
func configuredData(raw any) (*providerData, diag.Diagnostics) {
	var diags diag.Diagnostics
	if raw == nil {
		return nil, diags
	}
	data, ok := raw.(*providerData)
	if !ok {
		diags.AddError("Unexpected Provider Data Type",
			fmt.Sprintf("Expected *providerData, got %T. This is always a bug in the provider; please report it.", raw))
		return nil, diags
	}
	return data, diags
}

// notConfigured is the error for an operation that needs the API before the
// provider could be configured.
func notConfigured(diags *diag.Diagnostics) {
	diags.AddError("Provider Not Configured",
		"The cks provider has no CloudStack client yet, usually because its configuration depends on values "+
			"known only after apply. Apply the resources it depends on first, or set the provider values directly.")
}

// configuredDataSource holds the provider data of a data source. Embedded by
// value, it gives the data source its Configure method.
type configuredDataSource struct {
	data *providerData
}

// Configure implements datasource.DataSourceWithConfigure.
func (b *configuredDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	b.data = data
}

// decodeConfigured decodes a configuration, plan or state into target and
// reports whether the operation can go on: it decoded and the provider is
// configured. Otherwise diags says why.
func decodeConfigured(ctx context.Context, src interface {
	Get(context.Context, any) diag.Diagnostics
}, target any, data *providerData, diags *diag.Diagnostics,
) bool {
	diags.Append(src.Get(ctx, target)...)
	if diags.HasError() {
		return false
	}
	if data == nil {
		notConfigured(diags)
		return false
	}
	return true
}

// readShared marks the context of a refresh (a resource's Read, a data
// source's, a plan's checks): its reads of clusters and rules may be served
// from the lists this process asked for in the last second, one list per
// account or project instead of one call per cluster. Never for the reads
// an apply acts on: Create, Update and Delete read fresh.
func readShared(ctx context.Context) context.Context { return sharedreads.Shared(ctx) }

// engine is the cluster engine every resource and data source goes through.
func (d *providerData) engine() *clusterops.Engine { return d.clusters }

func newEngine(client cloudstack.API, etcdSSHStartPort int) *clusterops.Engine {
	return clusterops.New(client, clusterops.Options{
		EtcdSSHStartPort: etcdSSHStartPort,
		Wait:             clusterJobWait,
		// Tests shorten the waits before looking again for a lost create.
		LostCreateRechecks: lostCreateRechecks,
		Logf: func(ctx context.Context, msg string, fields map[string]any) {
			tflog.Debug(ctx, msg, fields)
		},
	})
}

func newCatalogEngine(client catalogops.API) *catalogops.Engine {
	return catalogops.New(client, catalogops.Options{
		Wait:         clusterJobWait,
		DownloadPoll: isoDownloadPoll,
		Logf: func(ctx context.Context, msg string, fields map[string]any) {
			tflog.Debug(ctx, msg, fields)
		},
	})
}

// sharedReadsFrom is the first cluster refresh of a process served from
// shared lists; zero takes sharedreads' default. The tests share from the
// first, so that every test of the suite runs on shared reads.
var sharedReadsFrom int

// isoDownloadPoll is the pause between two reads of a downloading ISO;
// zero takes the engine's default. Tests shorten it.
var isoDownloadPoll time.Duration

// clusterJobWait tunes how often CKS jobs and cluster states are polled.
// The zero value takes cloudstack's defaults; tests shorten the intervals.
var clusterJobWait cloudstack.WaitOptions

// lostCreateRechecks are the pauses before looking again for the cluster
// of a create whose answer was lost; nil takes the engine's default. Tests
// shorten them.
var lostCreateRechecks []time.Duration
