// Package kubeversion parses Kubernetes semantic versions and applies CKS's
// upgrade rule, so that the provider can reject an upgrade at plan time that
// the server would only refuse inside a job.
package kubeversion

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes release, major.minor.patch.
type Version struct {
	Major, Minor, Patch int
}

// Parse reads "1.33.13", "v1.33.13" or "1.33" (patch 0). Suffixes such as
// "-rc.1" are not CKS versions and are rejected.
func Parse(s string) (Version, error) {
	trimmed := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(trimmed, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("%q is not a semantic version like 1.33.13", s)
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return Version{}, fmt.Errorf("%q is not a semantic version like 1.33.13", s)
		}
		nums[i] = n
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2]}, nil
}

// FromName is the semantic version a CKS version's name carries, such as
// "1.32.1" for "v1.32.1", or "1.34.2" for "v1.34.2-zone1", the name
// CloudStack gives a zone's version by default (v<semantic version>-<zone
// name>, KubernetesVersionManagerImpl.addKubernetesSupportedVersion), or ""
// when the name is not a version: CloudStack returns only the name
// (kubernetesversionname) with a cluster, and an administrator may name a
// version freely.
func FromName(name string) string {
	v, err := Parse(name)
	if err != nil {
		head, _, suffixed := strings.Cut(strings.TrimSpace(name), "-")
		if !suffixed || !strings.HasPrefix(head, "v") || strings.Count(head, ".") != 2 {
			return ""
		}
		if v, err = Parse(head); err != nil {
			return ""
		}
	}
	return v.String()
}

// String formats the version as major.minor.patch.
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Compare returns -1, 0 or 1 as v is older than, equal to or newer than o.
func (v Version) Compare(o Version) int {
	for _, d := range []int{v.Major - o.Major, v.Minor - o.Minor, v.Patch - o.Patch} {
		if d < 0 {
			return -1
		}
		if d > 0 {
			return 1
		}
	}
	return 0
}

// CheckUpgrade applies the server's rule for upgradeKubernetesCluster
// (KubernetesVersionManagerImpl.canUpgradeKubernetesVersion): a newer
// version, of the same major version and at most one minor release ahead.
// The messages follow the server's own wording.
func CheckUpgrade(from, to Version) error {
	switch {
	case to.Compare(from) == 0:
		return fmt.Errorf("kubernetes clusters can not be upgraded, current version: %s, upgrade version: %s", from, to)
	case to.Compare(from) < 0:
		return fmt.Errorf("kubernetes clusters can not be downgraded, current version: %s, upgrade version: %s", from, to)
	case to.Major != from.Major || to.Minor > from.Minor+1:
		return fmt.Errorf("kubernetes clusters can be upgraded between next minor or patch version releases, current version: %s, upgrade version: %s", from, to)
	}
	return nil
}

// Prefix is the leading components of a version: "1" or "1.33" (or a whole
// version), as in "the newest 1.33".
type Prefix struct {
	parts []int
}

// ParsePrefix reads "1", "1.33" or "1.33.13", with or without a leading v.
func ParsePrefix(s string) (Prefix, error) {
	trimmed := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(trimmed, ".")
	if trimmed == "" || len(parts) > 3 {
		return Prefix{}, fmt.Errorf("%q is not a version prefix like 1.33", s)
	}
	p := Prefix{parts: make([]int, len(parts))}
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return Prefix{}, fmt.Errorf("%q is not a version prefix like 1.33", s)
		}
		p.parts[i] = n
	}
	return p, nil
}

// Matches reports whether v starts with the prefix, component by component:
// 1.33 matches 1.33.0 and 1.33.13, not 1.330.0.
func (p Prefix) Matches(v Version) bool {
	full := []int{v.Major, v.Minor, v.Patch}
	for i, n := range p.parts {
		if full[i] != n {
			return false
		}
	}
	return true
}

// String formats the prefix as given, without a leading v.
func (p Prefix) String() string {
	out := make([]string, len(p.parts))
	for i, n := range p.parts {
		out[i] = strconv.Itoa(n)
	}
	return strings.Join(out, ".")
}
