package clusterops

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/clusterview"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// Options tune an Engine.
type Options struct {
	// EtcdSSHStartPort is the provider setting mirroring
	// cloud.kubernetes.etcd.node.start.port, used only when a cluster has no
	// etcd forward to read the port from; 0 means 50000.
	EtcdSSHStartPort int
	// Wait tunes job polling; tests use short intervals. Its Command is
	// set per call. The overall limit is the context's deadline.
	Wait cloudstack.WaitOptions
	// LostCreateRechecks are the pauses before Create looks again for the
	// cluster of a create whose answer was lost; nil means 2 s and 5 s.
	LostCreateRechecks []time.Duration
	// UnknownOutcomeWait bounds how long the rules are read to learn what a
	// rule create or delete whose answer was lost did; 0 means 20 s.
	UnknownOutcomeWait time.Duration
	// Logf is optional; the provider passes tflog.
	Logf func(ctx context.Context, msg string, fields map[string]any)
}

// Intent is what the configuration asks of a cluster's rules.
type Intent struct {
	// SourceCIDRs are the source CIDRs the engine gives the SSH and API
	// firewall rules it keeps, and the lists it gave them before (from the
	// prior state and the private state), whose rules are still the
	// cluster's; they become the snapshot's layout's.
	rules.SourceCIDRs
	// MoveUserRules lets a scale delete the user rules that would make it go
	// wrong (a firewall rule CloudStack's selector would revoke, a forward
	// its cleanup would delete, a port-less rule) and re-create them with
	// the same protocol, ports and CIDRs after it.
	MoveUserRules bool
	// Network is the cluster's network kind when already known (it never
	// changes), which saves a listNetworks call; "" means look it up.
	Network rules.NetworkKind
	// EarlierDelete is, for a delete, the memo of an earlier attempt that
	// failed (Report.Memo): the CKS rules it saw, which Delete removes when
	// they are left, and the user rules its destroy may have taken, which it
	// re-creates.
	EarlierDelete DeleteMemo
}

// Engine runs cluster operations against one CloudStack API.
type Engine struct {
	api  API
	opts Options

	versionOnce sync.Once
	version     string
	versionErr  error
}

// New returns an Engine for api.
func New(api API, opts Options) *Engine {
	if opts.EtcdSSHStartPort <= 0 {
		opts.EtcdSSHStartPort = rules.DefaultEtcdStartPort
	}
	if opts.UnknownOutcomeWait <= 0 {
		opts.UnknownOutcomeWait = defaultUnknownOutcomeWait
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

// server describes the management server for the hazards that depend on
// its version (clusterview.ServerFor). The version is read at most once per
// engine, and only when a rule that needs it exists.
func (e *Engine) server(ctx context.Context, s *Snapshot) rules.Server {
	return clusterview.ServerFor(s.Rules, func() (string, error) { return e.cloudStackVersion(ctx) })
}

// cloudStackVersion is the management server's version, read once.
func (e *Engine) cloudStackVersion(ctx context.Context) (string, error) {
	e.versionOnce.Do(func() { e.version, e.versionErr = e.api.CloudStackVersion(ctx) })
	return e.version, e.versionErr
}

// CSIUnsupported returns the CloudStack version when it has no CKS CSI
// driver support and would ignore enablecsi: the CSI driver and the
// cluster's csi_enabled column came with 4.22.0 (apache/cloudstack#11419,
// KubernetesClusterManagerImpl.createManagedKubernetesCluster). It returns
// "" when the version supports it or cannot be read (the create then tells).
func (e *Engine) CSIUnsupported(ctx context.Context) string {
	version, err := e.cloudStackVersion(ctx)
	if err != nil {
		return ""
	}
	if clusterview.LacksCSI(version) {
		return version
	}
	return ""
}
