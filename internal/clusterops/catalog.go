package clusterops

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// NameMatch selects catalog entries by name: exactly (case-sensitive) when
// Name is set, else by the regular expression Regex.
//
// CloudStack's name filters are SQL EQ matches, case-insensitive under its
// database collation, and keyword is a LIKE; both are only narrowing here:
// the match itself is always made on the returned names.
type NameMatch struct {
	Name  string
	Regex *regexp.Regexp
}

func (m NameMatch) matches(name string) bool {
	if m.Regex != nil {
		return m.Regex.MatchString(name)
	}
	return name == m.Name
}

// phrase describes the match after a verb in the singular or plural.
func (m NameMatch) phrase(plural bool) string {
	switch {
	case m.Regex != nil && plural:
		return fmt.Sprintf("have a name matching %q", m.Regex.String())
	case m.Regex != nil:
		return fmt.Sprintf("has a name matching %q", m.Regex.String())
	case plural:
		return fmt.Sprintf("are named %q", m.Name)
	default:
		return fmt.Sprintf("is named %q", m.Name)
	}
}

// pickOne returns the one item whose name matches m. All items are what
// the scope shows; the error lists the matches, or the others when none
// matched.
func pickOne[T any](kind, scope string, items []T, m NameMatch, key func(T) (id, name string)) (T, error) {
	var found []T
	var matches, others []string
	seen := map[string]bool{}
	for _, it := range items {
		id, name := key(it)
		if seen[id] {
			continue // a page boundary moved by a concurrent change
		}
		seen[id] = true
		label := fmt.Sprintf("%s (%s)", name, id)
		if m.matches(name) {
			found = append(found, it)
			matches = append(matches, label)
		} else {
			others = append(others, label)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	var zero T
	slices.Sort(matches)
	err := &LookupError{Kind: kind, Match: m, Scope: scope, Matches: matches}
	if len(found) == 0 {
		slices.Sort(others)
		err.Others = others
	}
	return zero, err
}

// lookUp lists the scope with list and picks the one item m matches. list
// gets the exact name to narrow the server's answer with, or "" for the
// whole scope; narrowing only saves transfer, so a look-up that finds
// nothing in the narrowed list lists the scope again to name what is there.
func lookUp[T any](kind, scope string, m NameMatch, narrows bool, list func(name string) ([]T, error),
	key func(T) (id, name string)) (T, error) {
	var zero T
	narrow := ""
	if narrows && m.Regex == nil {
		narrow = m.Name
	}
	items, err := list(narrow)
	if err != nil {
		return zero, &ListError{What: kind + "s", Err: err}
	}
	found, err := pickOne(kind, scope, items, m, key)
	var le *LookupError
	if narrow == "" || !errors.As(err, &le) || le.Ambiguous() {
		return found, err
	}
	if all, listErr := list(""); listErr == nil {
		_, err = pickOne(kind, scope, all, m, key)
	}
	return zero, err
}

// FindZone finds the one zone visible to the caller that m matches. Zones
// are never narrowed by name: listZones with a name skips the filters that
// hide disabled zones and zones dedicated to other domains from a user
// (QueryManagerImpl.listDataCentersInternal applies them only without id
// and name).
func (e *Engine) FindZone(ctx context.Context, m NameMatch) (cloudstack.Zone, error) {
	return lookUp("zone", "", m, false, func(string) ([]cloudstack.Zone, error) { return e.api.ListZones(ctx) },
		func(z cloudstack.Zone) (string, string) { return z.ID, z.Name })
}

// FindServiceOffering finds the one compute offering m matches, among those
// usable in zoneID when it is set (listServiceOfferings' zoneid keeps the
// offerings of that zone and of no zone in particular).
func (e *Engine) FindServiceOffering(ctx context.Context, m NameMatch, zoneID string) (cloudstack.ServiceOffering, error) {
	return lookUp("service offering", zoneScope(zoneID), m, true,
		func(name string) ([]cloudstack.ServiceOffering, error) {
			return e.api.ListServiceOfferings(ctx, cloudstack.ListServiceOfferingsParams{Name: name, ZoneID: zoneID})
		},
		func(o cloudstack.ServiceOffering) (string, string) { return o.ID, o.Name })
}

// FindNetwork finds the one guest network m matches, in zoneID when set.
// A project's networks are listed only with its projectID: without one,
// listNetworks leaves project networks out (NetworkServiceImpl.searchForNetworks,
// skipProjectNetworks). The name narrows through keyword, a LIKE that every
// release has.
func (e *Engine) FindNetwork(ctx context.Context, m NameMatch, zoneID, projectID string) (cloudstack.Network, error) {
	scope := zoneScope(zoneID)
	if projectID != "" {
		scope = strings.TrimSpace(scope + " of project " + projectID)
	}
	return lookUp("network", scope, m, true,
		func(name string) ([]cloudstack.Network, error) {
			return e.api.ListNetworks(ctx, cloudstack.ListNetworksParams{Keyword: name, ZoneID: zoneID, ProjectID: projectID})
		},
		func(n cloudstack.Network) (string, string) { return n.ID, n.Name })
}

// FindProject finds the one project m matches among those the caller may
// see: every project for an admin (listall), a user's own projects.
func (e *Engine) FindProject(ctx context.Context, m NameMatch) (cloudstack.Project, error) {
	return lookUp("project", "", m, true,
		func(name string) ([]cloudstack.Project, error) {
			return e.api.ListProjects(ctx, cloudstack.ListProjectsParams{Name: name})
		},
		func(p cloudstack.Project) (string, string) { return p.ID, p.Name })
}

func zoneScope(zoneID string) string {
	if zoneID == "" {
		return ""
	}
	return "in zone " + zoneID
}
