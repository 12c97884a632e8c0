package clusterops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/kubeversion"
)

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

// VersionChoiceError is a selection by prefix or newest that found several
// usable versions and so cannot pick one.
type VersionChoiceError struct {
	// Candidates are "name (semantic version, id)", newest first.
	Candidates []string
	// Newest: the candidates share the newest semantic version, so asking
	// for the newest cannot tell them apart either.
	Newest bool
}

func (e *VersionChoiceError) Error() string {
	what := "usable Kubernetes versions match"
	if e.Newest {
		what = "usable Kubernetes versions share the newest semantic version"
	}
	return fmt.Sprintf("%d %s: %s", len(e.Candidates), what, strings.Join(e.Candidates, ", "))
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
