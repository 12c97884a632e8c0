package clusterops

import (
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

// ListError is a list call that failed, as opposed to a lookup that found
// nothing.
type ListError struct {
	What string
	Err  error
}

func (e *ListError) Error() string { return fmt.Sprintf("listing %s failed: %s", e.What, e.Err) }
func (e *ListError) Unwrap() error { return e.Err }

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
		return cloudstack.KubernetesVersion{}, fmt.Errorf("%d usable Kubernetes versions match: %s; give the version by id or name",
			len(found), strings.Join(names, ", "))
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

// UpgradeVerdict is what CheckUpgrade found.
type UpgradeVerdict int

// Upgrade verdicts.
const (
	// UpgradeAllowed: CKS's upgrade rule holds, or cannot be judged because
	// the versions are not semantic versions (CloudStack judges it).
	UpgradeAllowed UpgradeVerdict = iota
	// UpgradeUnknownTarget: no version has the target id in the zone.
	UpgradeUnknownTarget
	// UpgradeTargetNotUsable: the target is not Enabled with a Ready ISO.
	UpgradeTargetNotUsable
	// UpgradeCurrentUnknown: the cluster's version is no longer listed, so
	// the rule cannot be checked; CloudStack will check it.
	UpgradeCurrentUnknown
	// UpgradeRefused: a downgrade, a change of major version or a jump of
	// more than one minor version, which CloudStack refuses.
	UpgradeRefused
)

// UpgradeCheck is the verdict on an upgrade and its explanation.
type UpgradeCheck struct {
	Verdict UpgradeVerdict
	Message string
}

// CheckUpgrade applies CKS's upgrade rule (same major, at most one minor
// ahead, no downgrade: KubernetesClusterManagerImpl's upgrade validation)
// to the semantic versions of two version ids of a zone.
func (e *Engine) CheckUpgrade(ctx context.Context, zoneID, fromID, toID string) (UpgradeCheck, error) {
	versions, err := e.api.ListKubernetesSupportedVersions(ctx, zoneID)
	if err != nil {
		return UpgradeCheck{}, &ListError{What: "the Kubernetes versions of zone " + zoneID, Err: err}
	}
	from, fromOK := findVersionID(versions, fromID)
	to, toOK := findVersionID(versions, toID)
	switch {
	case !toOK:
		return UpgradeCheck{UpgradeUnknownTarget, fmt.Sprintf("No Kubernetes version with id %s exists in zone %s.", toID, zoneID)}, nil
	case !usableVersion(to):
		return UpgradeCheck{UpgradeTargetNotUsable, fmt.Sprintf("Kubernetes version %s (%s) is %s with ISO state %q; an "+
			"upgrade needs an Enabled version with a Ready ISO.", to.SemanticVersion, to.ID, to.State, to.ISOState)}, nil
	case !fromOK:
		return UpgradeCheck{UpgradeCurrentUnknown, fmt.Sprintf("The cluster's current version %s is no longer listed, so the "+
			"upgrade rule cannot be checked at plan time; CloudStack will check it.", fromID)}, nil
	}
	// Versions that are not semantic versions are left for CloudStack to
	// judge.
	fromV, errFrom := kubeversion.Parse(from.SemanticVersion)
	toV, errTo := kubeversion.Parse(to.SemanticVersion)
	if errFrom == nil && errTo == nil {
		if err := kubeversion.CheckUpgrade(fromV, toV); err != nil {
			return UpgradeCheck{UpgradeRefused, fmt.Sprintf("Cannot upgrade from %s (%s) to %s (%s): %s. CloudStack upgrades a "+
				"cluster within its major version, one minor version at a time, and never downgrades it.",
				from.SemanticVersion, from.ID, to.SemanticVersion, to.ID, err)}, nil
		}
	}
	return UpgradeCheck{Verdict: UpgradeAllowed}, nil
}

func findVersionID(versions []cloudstack.KubernetesVersion, id string) (cloudstack.KubernetesVersion, bool) {
	for _, v := range versions {
		if v.ID == id {
			return v, true
		}
	}
	return cloudstack.KubernetesVersion{}, false
}
