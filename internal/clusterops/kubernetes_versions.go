package clusterops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

// usableVersion is a version CKS can create or upgrade a cluster with:
// Enabled, with its ISO Ready in the zone
// (KubernetesClusterManagerImpl.validateKubernetesClusterCreateParameters).
func usableVersion(v cloudstack.KubernetesVersion) bool {
	return strings.EqualFold(v.State, "Enabled") && strings.EqualFold(v.ISOState, "Ready")
}

// VersionQuery selects one Kubernetes version: by exact SemanticVersion or
// Name, or among the usable versions whose semantic version starts with
// Prefix (all when empty), the only one or, with Latest, the newest.
type VersionQuery struct {
	SemanticVersion string
	Name            string
	Prefix          string
	Latest          bool
}

// FindVersion looks a usable Kubernetes version of the zone up; when there
// is none it says why and which versions could be used instead. A failure
// to list is returned as ListErr.
func (e *Engine) FindVersion(ctx context.Context, zoneID string, q VersionQuery) (cloudstack.KubernetesVersion, error) {
	versions, err := e.api.ListKubernetesSupportedVersions(ctx, zoneID)
	if err != nil {
		return cloudstack.KubernetesVersion{}, &ListError{What: "the Kubernetes versions of zone " + zoneID, Err: err}
	}
	if q.SemanticVersion != "" || q.Name != "" {
		return pickVersion(versions, q.SemanticVersion, q.Name)
	}
	return selectVersion(versions, q.Prefix, q.Latest)
}

func pickVersion(versions []cloudstack.KubernetesVersion, semver, name string) (cloudstack.KubernetesVersion, error) {
	var usable []string
	var reason string
	var found []cloudstack.KubernetesVersion
	for _, v := range versions {
		matches := (semver != "" && sameSemver(v.SemanticVersion, semver)) || (name != "" && v.Name == name)
		ok := usableVersion(v)
		if matches && ok && !slices.ContainsFunc(found, func(f cloudstack.KubernetesVersion) bool { return f.ID == v.ID }) {
			found = append(found, v)
		}
		if matches {
			reason = fmt.Sprintf("version %s (%s) exists but is %s with ISO state %q", v.SemanticVersion, v.ID, v.State, v.ISOState)
		}
		if ok {
			usable = append(usable, fmt.Sprintf("%s (%s)", v.SemanticVersion, v.Name))
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		// Which one the list shows first is not guaranteed; say so
		// instead of picking by position.
		var names []string
		for _, v := range found {
			names = append(names, fmt.Sprintf("%s (%s, %s)", v.Name, v.SemanticVersion, v.ID))
		}
		sort.Strings(names)
		return cloudstack.KubernetesVersion{}, &VersionChoiceError{Candidates: names, Exact: true}
	}
	sort.Strings(usable)
	wanted := semver
	if wanted == "" {
		wanted = name
	}
	if reason == "" {
		reason = fmt.Sprintf("no Kubernetes version %q is registered in the zone", wanted)
	}
	available := "none"
	if len(usable) > 0 {
		available = strings.Join(usable, ", ")
	}
	return cloudstack.KubernetesVersion{}, fmt.Errorf("%s. Versions that are Enabled with a Ready ISO: %s", reason, available)
}

func sameSemver(a, b string) bool {
	va, errA := kubeversion.Parse(a)
	vb, errB := kubeversion.Parse(b)
	return errA == nil && errB == nil && va == vb
}

// VersionFilter narrows the usable Kubernetes versions of a zone. Zero
// values filter nothing.
type VersionFilter struct {
	// Prefix keeps the versions whose semantic version starts with it,
	// component by component ("1.33").
	Prefix string
	// Minimum leaves out the versions older than it.
	Minimum string
	// UpgradableFrom keeps the versions a cluster of this semantic version
	// may be upgraded to by CKS's rule (kubeversion.CheckUpgrade).
	UpgradableFrom string
}

// semverVersion is a usable version with its parsed semantic version.
type semverVersion struct {
	cloudstack.KubernetesVersion
	v kubeversion.Version
}

// usableSemver returns the usable versions (Enabled, ISO Ready) whose
// semantic version parses, once each, newest first, then by name and id:
// an order of their own, not the list's.
func usableSemver(versions []cloudstack.KubernetesVersion) []semverVersion {
	var out []semverVersion
	seen := map[string]bool{}
	for _, kv := range versions {
		v, err := kubeversion.Parse(kv.SemanticVersion)
		if err != nil || !usableVersion(kv) || seen[kv.ID] {
			continue
		}
		seen[kv.ID] = true
		out = append(out, semverVersion{kv, v})
	}
	slices.SortFunc(out, func(a, b semverVersion) int {
		return cmp.Or(b.v.Compare(a.v), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// ListVersions lists the usable Kubernetes versions of a zone that pass the
// filter, newest first. A bad filter value is an error before any call.
func (e *Engine) ListVersions(ctx context.Context, zoneID string, f VersionFilter) ([]cloudstack.KubernetesVersion, error) {
	keep, err := f.predicate()
	if err != nil {
		return nil, err
	}
	versions, err := e.api.ListKubernetesSupportedVersions(ctx, zoneID)
	if err != nil {
		return nil, &ListError{What: "the Kubernetes versions of zone " + zoneID, Err: err}
	}
	out := []cloudstack.KubernetesVersion{}
	for _, sv := range usableSemver(versions) {
		if keep(sv.v) {
			out = append(out, sv.KubernetesVersion)
		}
	}
	return out, nil
}

// predicate parses the filter into one test of a semantic version.
func (f VersionFilter) predicate() (func(kubeversion.Version) bool, error) {
	var tests []func(kubeversion.Version) bool
	if f.Prefix != "" {
		p, err := kubeversion.ParsePrefix(f.Prefix)
		if err != nil {
			return nil, err
		}
		tests = append(tests, p.Matches)
	}
	if f.Minimum != "" {
		minimum, err := kubeversion.Parse(f.Minimum)
		if err != nil {
			return nil, err
		}
		tests = append(tests, func(v kubeversion.Version) bool { return v.Compare(minimum) >= 0 })
	}
	if f.UpgradableFrom != "" {
		from, err := kubeversion.Parse(f.UpgradableFrom)
		if err != nil {
			return nil, err
		}
		tests = append(tests, func(v kubeversion.Version) bool { return kubeversion.CheckUpgrade(from, v) == nil })
	}
	return func(v kubeversion.Version) bool {
		for _, t := range tests {
			if !t(v) {
				return false
			}
		}
		return true
	}, nil
}

// selectVersion picks among the usable versions matching prefix (all when
// empty) the only one, or with latest the newest.
func selectVersion(versions []cloudstack.KubernetesVersion, prefix string, latest bool) (cloudstack.KubernetesVersion, error) {
	keep, err := VersionFilter{Prefix: prefix}.predicate()
	if err != nil {
		return cloudstack.KubernetesVersion{}, err
	}
	usable := usableSemver(versions)
	var found []semverVersion
	for _, sv := range usable {
		if keep(sv.v) {
			found = append(found, sv)
		}
	}
	if len(found) == 0 {
		names := make([]string, 0, len(usable))
		for _, sv := range usable {
			names = append(names, fmt.Sprintf("%s (%s)", sv.SemanticVersion, sv.Name))
		}
		available := cmp.Or(strings.Join(names, ", "), "none")
		return cloudstack.KubernetesVersion{}, fmt.Errorf("no usable Kubernetes version of the zone starts with %q. "+
			"Versions that are Enabled with a Ready ISO: %s", prefix, available)
	}
	if latest {
		// found is newest first: keep the versions tied with the first.
		newest := found[0].v
		found = slices.DeleteFunc(found, func(sv semverVersion) bool { return sv.v != newest })
	}
	if len(found) == 1 {
		return found[0].KubernetesVersion, nil
	}
	candidates := make([]string, 0, len(found))
	for _, sv := range found {
		candidates = append(candidates, fmt.Sprintf("%s (%s, %s)", sv.Name, sv.SemanticVersion, sv.ID))
	}
	return cloudstack.KubernetesVersion{}, &VersionChoiceError{Candidates: candidates, Newest: latest}
}
