package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/client-go/tools/clientcmd"
)

var _ ephemeral.EphemeralResourceWithConfigure = (*clusterKubeconfigEphemeral)(nil)

// clusterKubeconfigEphemeral hands out a cluster's kubeconfig without ever
// putting it in state or plan files.
type clusterKubeconfigEphemeral struct {
	data *providerData
}

type clusterKubeconfigModel struct {
	ClusterID            types.String `tfsdk:"cluster_id"`
	Kubeconfig           types.String `tfsdk:"kubeconfig"`
	Host                 types.String `tfsdk:"host"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
}

func newClusterKubeconfigEphemeral() ephemeral.EphemeralResource {
	return &clusterKubeconfigEphemeral{}
}

func (e *clusterKubeconfigEphemeral) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cluster_kubeconfig"
}

func (e *clusterKubeconfigEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The kubeconfig of a CKS cluster, from `getKubernetesClusterConfig`. As an ephemeral resource " +
			"(Terraform 1.10+, OpenTofu 1.11+) it is never written to the state or plan files: use it to configure the " +
			"`kubernetes` and `helm` providers, either with `kubeconfig` written to a file or with `host`, `cluster_ca_certificate` and the " +
			"credentials below. The kubeconfig is available once the cluster has started.",
		Attributes: map[string]schema.Attribute{
			"cluster_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Id of the cluster, for example `cks_cluster.this.id`.",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"kubeconfig": schema.StringAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: "The kubeconfig YAML as CloudStack stores it (its server is the cluster's public endpoint).",
			},
			"host": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "API server URL of the kubeconfig's current context.",
			},
			"cluster_ca_certificate": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "PEM certificate authority of the API server; null when the kubeconfig has none.",
			},
			"token": schema.StringAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: "Bearer token of the current context's user; null when it authenticates otherwise.",
			},
			"client_certificate": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "PEM client certificate of the current context's user; null when it has none.",
			},
			"client_key": schema.StringAttribute{
				Computed: true, Sensitive: true,
				MarkdownDescription: "PEM client key of the current context's user; null when it has none.",
			},
		},
	}
}

func (e *clusterKubeconfigEphemeral) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	data, diags := configuredData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	e.data = data
}

func (e *clusterKubeconfigEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m clusterKubeconfigModel
	if !decodeConfigured(ctx, req.Config, &m, e.data, &resp.Diagnostics) {
		return
	}
	id := m.ClusterID.ValueString()
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, "kubeconfig", "token", "client_key")
	kubeconfig, err := e.data.engine().Kubeconfig(ctx, id)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("cluster_id"), "Unable to Get Cluster Kubeconfig",
			fmt.Sprintf("getKubernetesClusterConfig for cluster %s failed: %s", id, err))
		return
	}
	m.Kubeconfig = types.StringValue(kubeconfig)
	if err := m.fillCredentials(kubeconfig); err != nil {
		// The message comes from the YAML parser and can quote the input, so
		// only say that the document could not be parsed.
		resp.Diagnostics.AddAttributeWarning(path.Root("cluster_id"), "Kubeconfig Not Parsed",
			fmt.Sprintf("The kubeconfig of cluster %s is returned as is, but host and credentials could not be read from it.", id))
		tflog.Debug(ctx, "parsing the kubeconfig failed", map[string]any{"cluster_id": id})
	}
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}

// fillCredentials sets host, CA and credentials from the current context.
func (m *clusterKubeconfigModel) fillCredentials(kubeconfig string) error {
	m.Host, m.ClusterCACertificate = types.StringNull(), types.StringNull()
	m.Token, m.ClientCertificate, m.ClientKey = types.StringNull(), types.StringNull(), types.StringNull()
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		return err
	}
	ctxName := cfg.CurrentContext
	if ctxName == "" && len(cfg.Contexts) == 1 {
		for name := range cfg.Contexts {
			ctxName = name
		}
	}
	kctx, ok := cfg.Contexts[ctxName]
	if !ok {
		return fmt.Errorf("the kubeconfig has no context %q", ctxName)
	}
	if cluster, ok := cfg.Clusters[kctx.Cluster]; ok {
		m.Host = stringOrNull(cluster.Server)
		m.ClusterCACertificate = stringOrNull(string(cluster.CertificateAuthorityData))
	}
	if user, ok := cfg.AuthInfos[kctx.AuthInfo]; ok {
		m.Token = stringOrNull(user.Token)
		m.ClientCertificate = stringOrNull(string(user.ClientCertificateData))
		m.ClientKey = stringOrNull(string(user.ClientKeyData))
	}
	return nil
}
