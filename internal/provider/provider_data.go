package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// providerData is what Configure hands to every resource and data source.
type providerData struct {
	client           cloudstack.API
	etcdSSHStartPort int
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
	return &providerData{client: client, etcdSSHStartPort: s.etcdSSHStartPort}, nil
}

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
