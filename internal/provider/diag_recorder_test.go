package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// diagRecorder serves the provider and keeps every diagnostic its reads,
// plans and applies return, so that an acceptance test can check the
// warnings a user sees, which the CLI prints but the test framework drops.
type diagRecorder struct {
	mu    sync.Mutex
	diags []*tfprotov6.Diagnostic
}

func (r *diagRecorder) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"cks": func() (tfprotov6.ProviderServer, error) {
			srv, err := testAccProtoV6ProviderFactories["cks"]()
			return &recordingServer{ProviderServer: srv, r: r}, err
		},
	}
}

func (r *diagRecorder) add(diags []*tfprotov6.Diagnostic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.diags = append(r.diags, diags...)
}

// reset forgets what was recorded, for a PreConfig.
func (r *diagRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.diags = nil
}

// find returns the recorded diagnostics with the summary whose detail has
// every fragment.
func (r *diagRecorder) find(summary string, fragments ...string) []*tfprotov6.Diagnostic {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tfprotov6.Diagnostic
	for _, d := range r.diags {
		if d.Summary != summary {
			continue
		}
		detail := strings.Join(strings.Fields(d.Detail), " ")
		ok := true
		for _, f := range fragments {
			ok = ok && strings.Contains(detail, f)
		}
		if ok {
			out = append(out, d)
		}
	}
	return out
}

// expect checks that a diagnostic with the summary and fragments was
// returned since the last reset.
func (r *diagRecorder) expect(summary string, fragments ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if len(r.find(summary, fragments...)) == 0 {
			return fmt.Errorf("no %q diagnostic with %q among:\n%s", summary, fragments, r.String())
		}
		return nil
	}
}

// expectNone checks that no diagnostic with the summary was returned.
func (r *diagRecorder) expectNone(summary string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if found := r.find(summary); len(found) > 0 {
			return fmt.Errorf("unexpected %q diagnostic: %s", summary, found[0].Detail)
		}
		return nil
	}
}

func (r *diagRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, d := range r.diags {
		fmt.Fprintf(&b, "- %s: %s\n", d.Summary, d.Detail)
	}
	return b.String()
}

type recordingServer struct {
	tfprotov6.ProviderServer
	r *diagRecorder
}

func (s *recordingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	resp, err := s.ProviderServer.ReadResource(ctx, req)
	if resp != nil {
		s.r.add(resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	resp, err := s.ProviderServer.PlanResourceChange(ctx, req)
	if resp != nil {
		s.r.add(resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	if resp != nil {
		s.r.add(resp.Diagnostics)
	}
	return resp, err
}

func (s *recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	resp, err := s.ProviderServer.ReadDataSource(ctx, req)
	if resp != nil {
		s.r.add(resp.Diagnostics)
	}
	return resp, err
}
