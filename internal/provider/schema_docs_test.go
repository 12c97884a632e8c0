package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
)

// TestEverySchemaElementIsDescribed walks the schemas Terraform receives and
// fails on any provider, resource, data source or ephemeral resource, block or
// attribute (nested ones included) whose description is empty: the generated
// documentation would show a blank.
func TestEverySchemaElementIsDescribed(t *testing.T) {
	t.Parallel()
	server, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Fatalf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}

	schemas := map[string]*tfprotov6.Schema{"provider": resp.Provider}
	for name, s := range resp.ResourceSchemas {
		schemas["resource "+name] = s
	}
	for name, s := range resp.DataSourceSchemas {
		schemas["data source "+name] = s
	}
	for name, s := range resp.EphemeralResourceSchemas {
		schemas["ephemeral resource "+name] = s
	}
	for _, want := range []string{"resource cks_cluster", "data source cks_cluster_drift", "data source cks_clusters_drift",
		"data source cks_cluster", "data source cks_kubernetes_version", "ephemeral resource cks_cluster_kubeconfig",
		"data source cks_kubernetes_versions", "data source cks_zone", "data source cks_service_offering", "data source cks_network",
		"data source cks_project"} {
		if schemas[want] == nil {
			t.Errorf("the provider does not serve %s", want)
		}
	}

	var missing []string
	for name, s := range schemas {
		if name != "provider" && strings.TrimSpace(s.Block.Description) == "" {
			missing = append(missing, name)
		}
		missing = append(missing, undescribed(name, s.Block)...)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no description: %s", m)
	}
}

func undescribed(prefix string, b *tfprotov6.SchemaBlock) []string {
	var out []string
	for _, a := range b.Attributes {
		p := prefix + "." + a.Name
		if strings.TrimSpace(a.Description) == "" {
			out = append(out, p)
		}
		if a.NestedType != nil {
			out = append(out, undescribedNested(p, a.NestedType)...)
		}
	}
	for _, nb := range b.BlockTypes {
		p := prefix + "." + nb.TypeName
		if strings.TrimSpace(nb.Block.Description) == "" {
			out = append(out, p)
		}
		out = append(out, undescribed(p, nb.Block)...)
	}
	return out
}

func undescribedNested(prefix string, o *tfprotov6.SchemaObject) []string {
	var out []string
	for _, a := range o.Attributes {
		p := prefix + "." + a.Name
		if strings.TrimSpace(a.Description) == "" {
			out = append(out, p)
		}
		if a.NestedType != nil {
			out = append(out, undescribedNested(p, a.NestedType)...)
		}
	}
	return out
}

// TestDocsDescriptionsReadAsText checks the description of every generated
// page's front matter, which registries show as plain text: tfplugindocs
// renders a Markdown list there with its items run together, so a sentence
// must not run into the next ("etcdnodes.The owner's") and the drift pages
// must name every finding kind apart.
func TestDocsDescriptionsReadAsText(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*", "*.md"))
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs pages: %v, %v", pages, err)
	}
	glued := regexp.MustCompile(`[a-z)]\.[A-Z]`)
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(data), "description: |-\n")
		description, _, _ := strings.Cut(rest, "\n---")
		if m := glued.FindString(description); m != "" {
			t.Errorf("%s: the description runs sentences together (%q)", page, m)
		}
		if !strings.Contains(page, "data-sources") || !strings.Contains(page, "drift") {
			continue
		}
		for _, kind := range drift.Kinds() {
			if !regexp.MustCompile(`[\s,:]` + kind + `[\s,.]`).MatchString(description) {
				t.Errorf("%s: the description does not name finding kind %s apart", page, kind)
			}
		}
	}
}
