package clusterops

import (
	"context"
	"encoding/json"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Options tune an Engine.
type Options struct {
	// EtcdSSHStartPort is the provider setting mirroring
	// cloud.kubernetes.etcd.node.start.port; 0 means 50000.
	EtcdSSHStartPort int
	// Wait tunes job polling; tests use short intervals. Its Command is
	// set per call. The overall limit is the context's deadline.
	Wait cloudstack.WaitOptions
	// RecreateUserHazardRules lets the engine delete and re-create USER-owned firewall rules that the
	// 4.21–4.22.1.1 removeSshFirewallRule bug would pick before the node SSH range. Off by default.
	// It also lets Scale record user port forwards that the server's range cleanup would delete, and
	// re-create them after the scale with their source CIDRs.
	RecreateUserHazardRules bool
	// AllowRestartForRecovery lets Recover stop and start a cluster stuck in Alert with a stale size (interrupts workloads).
	AllowRestartForRecovery bool
	// Logf is optional; the provider passes tflog.
	Logf func(ctx context.Context, msg string, fields map[string]any)

	// HazardOptInName and RestartOptInName name the settings that turn on
	// RecreateUserHazardRules and AllowRestartForRecovery (e.g. the
	// Terraform attribute names), for error messages. Empty means the
	// option names above.
	HazardOptInName  string
	RestartOptInName string
}

// Engine runs cluster operations against one CloudStack API.
type Engine struct {
	api  cloudstack.API
	opts Options
}

// New returns an Engine for api.
func New(api cloudstack.API, opts Options) *Engine {
	if opts.EtcdSSHStartPort <= 0 {
		opts.EtcdSSHStartPort = rules.DefaultEtcdStartPort
	}
	if opts.HazardOptInName == "" {
		opts.HazardOptInName = "RecreateUserHazardRules"
	}
	if opts.RestartOptInName == "" {
		opts.RestartOptInName = "AllowRestartForRecovery"
	}
	return &Engine{api: api, opts: opts}
}

func (e *Engine) logf(ctx context.Context, msg string, fields map[string]any) {
	if e.opts.Logf != nil {
		e.opts.Logf(ctx, msg, fields)
	}
}

// wait waits for an async job started by command.
func (e *Engine) wait(ctx context.Context, command, jobID string) (json.RawMessage, error) {
	opts := e.opts.Wait
	opts.Command = command
	return cloudstack.WaitForJob(ctx, e.api, jobID, opts)
}

// step records a step in the report and logs it.
func (e *Engine) step(ctx context.Context, rep *Report, kind StepKind, msg string) *Step {
	e.logf(ctx, msg, map[string]any{"cluster_id": rep.ClusterID, "step": string(kind)})
	return rep.add(kind, msg)
}
