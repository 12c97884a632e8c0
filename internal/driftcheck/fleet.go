package driftcheck

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/drift"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/naming"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// Fleet concurrency limits.
const (
	// DefaultConcurrency is how many clusters CheckMany checks at once.
	DefaultConcurrency = 8
	// MaxConcurrency caps it, to spare the management server and the
	// control nodes.
	MaxConcurrency = 64
)

// Filter selects the clusters of a fleet check. Zero fields select all.
type Filter struct {
	// Account is the owning account's name (case-insensitive). Project
	// clusters have no account and are left out when it is set.
	Account string
	// ProjectID selects the clusters of one project.
	ProjectID string
	// NameRegex must match the cluster name.
	NameRegex *regexp.Regexp
	// ZoneID selects the clusters of one zone.
	ZoneID string
}

// ClusterReport is the outcome for one cluster of a fleet.
type ClusterReport struct {
	ID        string
	Name      string
	Account   string
	ProjectID string
	Result    drift.Result
	Node      NodeCheck
	// Err is why the cluster could not be checked; Result is empty then.
	Err error
}

// Fleet is the outcome of CheckMany.
type Fleet struct {
	// Clusters are ordered by name, then id.
	Clusters []ClusterReport
	// InSync is true when every selected cluster was checked completely and
	// is in sync: a skipped, failed or incomplete cluster makes it false.
	InSync bool
	// Counts adds up the findings of every cluster, every kind included;
	// IgnoredCounts the findings ignore rules accepted.
	Counts, IgnoredCounts map[string]int
	// RuleUses adds up what each ignore rule did over the clusters
	// compared.
	RuleUses []drift.RuleUse
	// Checked counts the clusters that were compared, Drifted those of them
	// with findings and Incomplete those with a view that could not be
	// read (a cluster can be both); Skipped and Failed count the clusters
	// that were not compared.
	Checked, Drifted, Incomplete, Skipped, Failed int
	// IncompleteViews counts the incomplete clusters per missing view.
	IncompleteViews map[string]int
	Summary         string
}

// CheckMany checks every cluster the credentials see that matches f, at
// most concurrency at a time (0 means DefaultConcurrency). It lists the
// clusters once, each owner's VMs once, and, when several clusters need
// their rules compared, all rules once; so the CloudStack requests per
// cluster drop as the fleet grows. A cluster that cannot be checked gets
// its own Err; CheckMany itself fails only when the clusters cannot be
// listed or the options are invalid.
func (c *Checker) CheckMany(ctx context.Context, f Filter, opts Options, concurrency int) (Fleet, Stats, error) {
	start := time.Now()
	m := newMeter()
	if err := opts.Validate(); err != nil {
		return Fleet{}, m.stats(start), err
	}
	if opts.NodeSource == NodeSourceSSH && opts.SSH.KnownHosts != "" {
		// Read once for every cluster; Validate has checked it.
		opts.SSH.ParsedKnownHosts, _ = sshlister.ParseKnownHosts(opts.SSH.KnownHosts)
	}
	switch {
	case concurrency <= 0:
		concurrency = DefaultConcurrency
	case concurrency > MaxConcurrency:
		concurrency = MaxConcurrency
	}
	idx, err := c.listFleet(ctx, m, f)
	if err != nil {
		return Fleet{}, m.stats(start), err
	}
	selected := selectClusters(idx, f)
	plan := c.planFleet(ctx, m, selected, opts)

	reports := make([]ClusterReport, len(selected))
	sem := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	for i, cl := range selected {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				reports[i] = reportOf(cl, drift.Result{}, NodeCheck{}, ctx.Err())
				return
			}
			defer func() { <-sem }()
			res, node, err := c.checkCluster(ctx, m, cl, idx, opts, plan.vms(cl), plan.bulkFor(cl))
			reports[i] = reportOf(cl, res, node, err)
		})
	}
	wg.Wait()
	fleet := summarizeFleet(reports)
	fleet.RuleUses = fleetRuleUses(reports, opts.Ignore, c.now())
	return fleet, m.stats(start), nil
}

// fleetRuleUses adds up what each ignore rule did in the clusters that
// were checked.
func fleetRuleUses(reports []ClusterReport, rules []drift.IgnoreRule, now time.Time) []drift.RuleUse {
	total := make([]drift.RuleUse, len(rules))
	for i, r := range rules {
		total[i].Expired = r.Expired(now)
	}
	for _, r := range reports {
		if r.Err == nil {
			total = drift.AddRuleUses(total, r.Result.RuleUses)
		}
	}
	return total
}

// listFleet lists the clusters: the accounts' clusters with listall and,
// unless the filter rules projects out, every project's clusters.
func (c *Checker) listFleet(ctx context.Context, m *meter, f Filter) (*clusterIndex, error) {
	if f.ProjectID != "" {
		list, err := c.listClusters(ctx, m, f.ProjectID)
		if err != nil {
			return nil, err
		}
		return newClusterIndex(list), nil
	}
	list, err := c.listClusters(ctx, m, "")
	if err != nil {
		return nil, err
	}
	idx := newClusterIndex(list)
	if f.Account != "" {
		return idx, nil
	}
	projects, err := c.listClusters(ctx, m, allProjects)
	if err != nil {
		return nil, err
	}
	idx.add(projects)
	return idx, nil
}

func selectClusters(idx *clusterIndex, f Filter) []*cloudstack.Cluster {
	var out []*cloudstack.Cluster
	for i := range idx.clusters {
		cl := &idx.clusters[i]
		switch {
		case f.Account != "" && (cl.ProjectID != "" || !strings.EqualFold(cl.Account, f.Account)),
			f.ProjectID != "" && cl.ProjectID != f.ProjectID,
			f.NameRegex != nil && !f.NameRegex.MatchString(cl.Name),
			f.ZoneID != "" && !strings.EqualFold(cl.ZoneID, f.ZoneID):
			continue
		}
		out = append(out, cl)
	}
	slices.SortStableFunc(out, func(a, b *cloudstack.Cluster) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return out
}

// fleetPlan holds what the clusters of a fleet share: one VM listing per
// owner and, when worth it, one listing of all the accounts' rules and one
// of all the projects' rules.
type fleetPlan struct {
	ownerVMs     map[string]*ownerVMs
	bulk         *bulkRules
	projectsBulk *bulkRules
	fetchVMs     func(owner cloudstack.Ownership) ([]cloudstack.VirtualMachine, error)
}

// bulkFor is the shared rule listing of the cluster's kind of owner, or nil
// when the cluster lists its own rules.
func (p *fleetPlan) bulkFor(cl *cloudstack.Cluster) *bulkRules {
	if cl.ProjectID != "" {
		return p.projectsBulk
	}
	return p.bulk
}

// vms is the VM source of one cluster: from its owner's shared listing,
// the VMs that can matter to the cluster (ownerVMs.forCluster).
func (p *fleetPlan) vms(cl *cloudstack.Cluster) vmSource {
	owner := ownerOf(cl)
	shared := p.ownerVMs[ownerKey(owner)]
	return func(ctx context.Context) ([]cloudstack.VirtualMachine, error) {
		if shared == nil {
			return p.fetchVMs(owner)
		}
		shared.once.Do(func() {
			if shared.vms, shared.err = p.fetchVMs(owner); shared.err == nil {
				shared.index()
			}
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if shared.err != nil {
			return nil, shared.err
		}
		return shared.forCluster(cl), nil
	}
}

// ownerVMs lists one owner's VMs once, for every cluster of that owner,
// and indexes them, so that each cluster compares its own VMs, not the
// owner's thousands: a fleet's cost then grows with its clusters, not with
// clusters times VMs.
type ownerVMs struct {
	once     sync.Once
	vms      []cloudstack.VirtualMachine
	err      error
	byID     map[string]int
	byPrefix map[string][]int
}

func (o *ownerVMs) index() {
	o.byID = make(map[string]int, len(o.vms))
	o.byPrefix = map[string][]int{}
	for i, vm := range o.vms {
		o.byID[vm.ID] = i
		for _, p := range naming.NamePrefixes(vmName(vm)) {
			o.byPrefix[p] = append(o.byPrefix[p], i)
		}
	}
}

// forCluster are the VMs the comparison of cl can look at: those of its
// VM map, and those named with one of its prefixes (strays and nodes of
// its own naming), in listing order. drift.Compare ignores every other VM.
func (o *ownerVMs) forCluster(cl *cloudstack.Cluster) []cloudstack.VirtualMachine {
	picked := map[int]bool{}
	for _, vm := range cl.VirtualMachines {
		if i, ok := o.byID[vm.ID]; ok {
			picked[i] = true
		}
	}
	m := naming.NewMatcher(cl.Name, cl.ID)
	for _, p := range []string{m.Prefix(), m.LegacyPrefix(), m.EtcdPrefix()} {
		for _, i := range o.byPrefix[p] {
			picked[i] = true
		}
	}
	out := make([]cloudstack.VirtualMachine, 0, len(picked))
	for _, i := range slices.Sorted(maps.Keys(picked)) {
		out = append(out, o.vms[i])
	}
	return out
}

func (c *Checker) planFleet(ctx context.Context, m *meter, clusters []*cloudstack.Cluster, opts Options) *fleetPlan {
	plan := &fleetPlan{ownerVMs: map[string]*ownerVMs{}}
	accountChecks, projectChecks := 0, 0
	for _, cl := range clusters {
		if drift.Compare(drift.Input{Cluster: toDriftCluster(cl)}).Skipped {
			continue // skipped clusters fetch nothing
		}
		key := ownerKey(ownerOf(cl))
		if plan.ownerVMs[key] == nil {
			plan.ownerVMs[key] = &ownerVMs{}
		}
		if cl.ProjectID == "" {
			accountChecks++
		} else {
			projectChecks++
		}
	}
	if opts.CheckNetworkRules && accountChecks > 1 {
		plan.bulk = &bulkRules{ctx: ctx}
	}
	if opts.CheckNetworkRules && projectChecks > 1 {
		plan.projectsBulk = &bulkRules{ctx: ctx, projectID: allProjects}
	}
	// The shared listings run under the fleet's context, never under one
	// cluster's, so that a cluster giving up cannot fail them for others.
	plan.fetchVMs = func(owner cloudstack.Ownership) ([]cloudstack.VirtualMachine, error) {
		return c.listOwnerVMs(ctx, m, owner)
	}
	return plan
}

func reportOf(cl *cloudstack.Cluster, res drift.Result, node NodeCheck, err error) ClusterReport {
	return ClusterReport{ID: cl.ID, Name: cl.Name, Account: cl.Account, ProjectID: cl.ProjectID,
		Result: res, Node: node, Err: err}
}

// summarizeFleet adds the clusters up.
func summarizeFleet(reports []ClusterReport) Fleet {
	f := Fleet{Clusters: reports, Counts: map[string]int{}, IgnoredCounts: map[string]int{}, IncompleteViews: map[string]int{}}
	for _, k := range drift.Kinds() {
		f.Counts[k] = 0
		f.IgnoredCounts[k] = 0
	}
	findings, inSync := 0, 0
	for _, r := range reports {
		switch {
		case r.Err != nil:
			f.Failed++
		case r.Result.Skipped:
			f.Skipped++
		default:
			f.Checked++
			if len(r.Result.Findings) > 0 {
				f.Drifted++
			}
			if len(r.Result.Incomplete) > 0 {
				f.Incomplete++
				for _, v := range r.Result.Incomplete {
					f.IncompleteViews[v.View]++
				}
			}
			if r.Result.InSync {
				inSync++
			}
			for k, n := range r.Result.Counts {
				f.Counts[k] += n
				findings += n
			}
			for k, n := range r.Result.IgnoredCounts {
				f.IgnoredCounts[k] += n
			}
		}
	}
	f.InSync = inSync == len(reports)
	f.Summary = fleetSummary(f, len(reports), inSync, findings)
	return f
}

// fleetSummary reads e.g. "4 clusters: 1 in sync, 1 drifted (2 findings:
// 1 unmapped_vm, 1 size_mismatch), 1 incomplete (views not checked: 1
// nodes), 1 skipped".
func fleetSummary(f Fleet, total, inSync, findings int) string {
	if total == 0 {
		return "no cluster matched"
	}
	parts := []string{fmt.Sprintf("%d in sync", inSync)}
	if f.Drifted > 0 {
		var kinds []string
		for _, k := range drift.Kinds() {
			if n := f.Counts[k]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
			}
		}
		parts = append(parts, fmt.Sprintf("%d drifted (%s: %s)", f.Drifted, plural(findings, "finding"), strings.Join(kinds, ", ")))
	}
	if f.Incomplete > 0 {
		var views []string
		for _, v := range []string{drift.ViewNodes, drift.ViewNetworkRules} {
			if n := f.IncompleteViews[v]; n > 0 {
				views = append(views, fmt.Sprintf("%d %s", n, v))
			}
		}
		parts = append(parts, fmt.Sprintf("%d incomplete (views not checked: %s)", f.Incomplete, strings.Join(views, ", ")))
	}
	if f.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", f.Skipped))
	}
	if f.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d not checked because of errors", f.Failed))
	}
	if ignored := drift.IgnoredText(f.IgnoredCounts); ignored != "" {
		parts = append(parts, ignored)
	}
	return fmt.Sprintf("%s: %s", plural(total, "cluster"), strings.Join(parts, ", "))
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
