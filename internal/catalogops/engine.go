package catalogops

import (
	"context"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// API is the part of CloudStack the engine drives.
type API interface {
	cloudstack.VersionAdmin
	cloudstack.CNIConfigurations
	cloudstack.ClusterReader
	cloudstack.JobQuerier
	ListKubernetesSupportedVersions(ctx context.Context, zoneID string) ([]cloudstack.KubernetesVersion, error)
}

// Options tune an Engine.
type Options struct {
	// Wait tunes job polling; its Command is set per call.
	Wait cloudstack.WaitOptions
	// DownloadPoll is the pause between two reads of a downloading ISO;
	// zero means 5 s.
	DownloadPoll time.Duration
	// DownloadProgress is how often a download's progress is logged; zero
	// means 30 s.
	DownloadProgress time.Duration
	// Logf is optional; the provider passes tflog.
	Logf func(ctx context.Context, msg string, fields map[string]any)
}

// Engine runs the catalog operations against one CloudStack API.
type Engine struct {
	api  API
	opts Options
}

// New returns an Engine for api.
func New(api API, opts Options) *Engine {
	if opts.DownloadPoll <= 0 {
		opts.DownloadPoll = 5 * time.Second
	}
	if opts.DownloadProgress <= 0 {
		opts.DownloadProgress = 30 * time.Second
	}
	return &Engine{api: api, opts: opts}
}

func (e *Engine) logf(ctx context.Context, msg string, fields map[string]any) {
	if e.opts.Logf != nil {
		e.opts.Logf(ctx, msg, fields)
	}
}

// waitOptions are the job wait options for a command.
func (e *Engine) waitOptions(command string) cloudstack.WaitOptions {
	w := e.opts.Wait
	w.Command = command
	return w
}
