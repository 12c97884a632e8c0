package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// helmStandIn stands in for hashicorp/helm 3 in the kubeconfig example's
// test, which cannot run the real one here: the Go module proxy serves only
// helm's v1 releases (its later tags lack a /vN module path), whose
// `kubernetes` is a block where helm 3 has the object attribute the example
// uses; and helm's only objects that call the cluster, helm_release and
// helm_template with validate, install or render charts, which needs an API
// server that stores releases, not the simulator's read-only one.
//
// The stand-in has helm 3's `kubernetes` attribute with its credentials
// attributes, so the example's provider block is checked against helm 3's
// names, and builds its Kubernetes client from them as helm 3 does
// (helm/kubeconfig.go: clientcmd overrides of server, CA data, client
// certificate and key data, token). Its one data source, which exists only
// here, makes the calls helm makes first on an install: the server version
// (action.Configuration's capabilities, from /version) and the release namespace.
type helmStandIn struct{}

type helmKubernetesModel struct {
	Host                 types.String `tfsdk:"host"`
	Username             types.String `tfsdk:"username"`
	Password             types.String `tfsdk:"password"`
	Insecure             types.Bool   `tfsdk:"insecure"`
	TLSServerName        types.String `tfsdk:"tls_server_name"`
	ClientCertificate    types.String `tfsdk:"client_certificate"`
	ClientKey            types.String `tfsdk:"client_key"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	Token                types.String `tfsdk:"token"`
	ProxyURL             types.String `tfsdk:"proxy_url"`
}

type helmProviderModel struct {
	Kubernetes *helmKubernetesModel `tfsdk:"kubernetes"`
}

func (p *helmStandIn) Metadata(_ context.Context, _ fwprovider.MetadataRequest, resp *fwprovider.MetadataResponse) {
	resp.TypeName = "helm"
}

func (p *helmStandIn) Schema(_ context.Context, _ fwprovider.SchemaRequest, resp *fwprovider.SchemaResponse) {
	str := func(sensitive bool) pschema.StringAttribute {
		return pschema.StringAttribute{Optional: true, Sensitive: sensitive}
	}
	resp.Schema = pschema.Schema{Attributes: map[string]pschema.Attribute{
		"kubernetes": pschema.SingleNestedAttribute{Optional: true, Attributes: map[string]pschema.Attribute{
			"host": str(false), "username": str(false), "password": str(true), "insecure": pschema.BoolAttribute{Optional: true},
			"tls_server_name": str(false), "client_certificate": str(false), "client_key": str(true),
			"cluster_ca_certificate": str(false), "token": str(true), "proxy_url": str(false),
		}},
	}}
}

func (p *helmStandIn) Configure(ctx context.Context, req fwprovider.ConfigureRequest, resp *fwprovider.ConfigureResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		// Known only after apply: helm builds its client lazily, when an
		// object of the configuration is read or applied.
		return
	}
	var m helmProviderModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Kubernetes == nil {
		return
	}
	k := m.Kubernetes
	overrides := &clientcmd.ConfigOverrides{}
	overrides.ClusterInfo.InsecureSkipTLSVerify = k.Insecure.ValueBool()
	overrides.ClusterInfo.TLSServerName = k.TLSServerName.ValueString()
	overrides.ClusterInfo.CertificateAuthorityData = []byte(k.ClusterCACertificate.ValueString())
	overrides.AuthInfo.ClientCertificateData = []byte(k.ClientCertificate.ValueString())
	overrides.AuthInfo.ClientKeyData = []byte(k.ClientKey.ValueString())
	overrides.AuthInfo.Token = k.Token.ValueString()
	overrides.AuthInfo.Username = k.Username.ValueString()
	overrides.AuthInfo.Password = k.Password.ValueString()
	overrides.ClusterDefaults.ProxyURL = k.ProxyURL.ValueString()
	if host := k.Host.ValueString(); host != "" {
		if _, err := url.Parse(host); err != nil {
			resp.Diagnostics.AddError("Invalid host", err.Error())
			return
		}
		overrides.ClusterInfo.Server = host
	}
	loader := &clientcmd.ClientConfigLoadingRules{} // no kubeconfig file: the attributes only
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loader, overrides).ClientConfig()
	if err != nil {
		resp.Diagnostics.AddError("Invalid Kubernetes configuration", err.Error())
		return
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		resp.Diagnostics.AddError("Kubernetes scheme", err.Error())
		return
	}
	config.APIPath = "/api"
	config.GroupVersion = &schema.GroupVersion{Version: "v1"}
	config.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	client, err := rest.RESTClientFor(config)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Kubernetes configuration", err.Error())
		return
	}
	resp.DataSourceData = client
}

func (p *helmStandIn) Resources(context.Context) []func() resource.Resource { return nil }

func (p *helmStandIn) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return &helmClusterProbe{} }}
}

// helmClusterProbe is the stand-in's data source helm_standin_cluster.
type helmClusterProbe struct{ client *rest.RESTClient }

type helmClusterProbeModel struct {
	Namespace         types.String `tfsdk:"namespace"`
	KubernetesVersion types.String `tfsdk:"kubernetes_version"`
	NamespacePhase    types.String `tfsdk:"namespace_phase"`
}

func (d *helmClusterProbe) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = "helm_standin_cluster"
}

func (d *helmClusterProbe) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{Attributes: map[string]dschema.Attribute{
		"namespace":          dschema.StringAttribute{Required: true},
		"kubernetes_version": dschema.StringAttribute{Computed: true},
		"namespace_phase":    dschema.StringAttribute{Computed: true},
	}}
}

func (d *helmClusterProbe) Configure(_ context.Context, req datasource.ConfigureRequest, _ *datasource.ConfigureResponse) {
	d.client, _ = req.ProviderData.(*rest.RESTClient)
}

func (d *helmClusterProbe) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m helmClusterProbeModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.client == nil {
		resp.Diagnostics.AddError("No Kubernetes configuration", "provider \"helm\" has no kubernetes attribute")
		return
	}
	var v version.Info
	body, err := d.client.Get().AbsPath("/version").Do(ctx).Raw()
	if err == nil {
		err = json.Unmarshal(body, &v)
	}
	if err != nil {
		resp.Diagnostics.AddError("Kubernetes cluster unreachable", err.Error())
		return
	}
	var ns corev1.Namespace
	if err := d.client.Get().Resource("namespaces").Name(m.Namespace.ValueString()).Do(ctx).Into(&ns); err != nil {
		resp.Diagnostics.AddError("Reading the release namespace", fmt.Sprintf("namespace %s: %v", m.Namespace.ValueString(), err))
		return
	}
	m.KubernetesVersion = types.StringValue(v.GitVersion)
	m.NamespacePhase = types.StringValue(string(ns.Status.Phase))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
