package cloudstack

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// maxPages stops a server that keeps returning pages forever.
const maxPages = 10000

// maxListings is how many times a list is read from its first page when rows
// are removed while it is paged.
const maxListings = 3

// pageFetcher returns one 1-based page and the total CloudStack reports
// (count), which is the total that matched, not the page length.
type pageFetcher[T any] func(ctx context.Context, page, pageSize int) (items []T, total int, err error)

// errListShrank says that rows were removed between two pages of a list.
var errListShrank = errors.New("rows were removed while the list was read")

// collectPages fetches pages until the reported total is reached or a page
// comes back empty. key identifies an item.
//
// The list comes back sorted by key, whatever order the server listed it in.
// CloudStack promises no order: each list command's query picks its own
// (FirewallManagerImpl.listFirewallRules,
// RulesManagerImpl.listPortForwardingRules and
// NetworkACLServiceImpl.listNetworkACLs order by id descending,
// listLoadBalancerRules and listKubernetesClusters ascending), another
// version may pick another, and a query without ORDER BY leaves it to the
// database. Sorting
// here means nothing above the client can depend on that order, so every
// engine sees the same list from every server (TestEveryListHasOneOrder).
//
// Rows shift when objects are created or removed while a list is paged
// (CloudStack pages with LIMIT and OFFSET over a live query). A row created
// before the read position pushes the rest down: an item seen on an earlier
// page comes again and is skipped. A row removed before the read position
// pulls the rest up: one item would never be seen. The total falls then,
// so a falling total reads the list again from its first page, up to
// maxListings times, and then fails rather than answer with a list that
// may miss an object.
func collectPages[T any](ctx context.Context, command string, pageSize int, key func(T) string, fetch pageFetcher[T]) ([]T, error) {
	for listing := 1; ; listing++ {
		all, err := collectListing(ctx, command, pageSize, key, fetch)
		if err == nil {
			sortByKey(all, key)
			return all, nil
		}
		if !errors.Is(err, errListShrank) {
			return nil, err
		}
		tflog.Debug(ctx, "CloudStack list changed while paged; reading it again", map[string]any{
			"cloudstack_command": command,
			"listing":            listing,
		})
		if listing == maxListings {
			return nil, fmt.Errorf("%s: objects were removed while the list was read page by page, %d times in a row; "+
				"try again when the objects stop changing", command, maxListings)
		}
	}
}

// collectListing reads a list once, from its first page.
func collectListing[T any](ctx context.Context, command string, pageSize int, key func(T) string, fetch pageFetcher[T]) ([]T, error) {
	var all []T
	seen := make(map[string]struct{})
	firstTotal := -1
	for page := 1; page <= maxPages; page++ {
		items, total, err := fetch(ctx, page, pageSize)
		if err != nil {
			return nil, err
		}
		if firstTotal < 0 {
			firstTotal = total
		} else if total < firstTotal {
			return nil, errListShrank
		}
		for _, it := range items {
			if k := key(it); k != "" {
				if _, dup := seen[k]; dup {
					continue
				}
				seen[k] = struct{}{}
			}
			all = append(all, it)
		}
		tflog.Debug(ctx, "CloudStack list page", map[string]any{
			"cloudstack_command": command,
			"page":               page,
			"page_count":         len(items),
			"count":              total,
			"collected":          len(all),
		})
		if len(items) == 0 || len(all) >= total {
			break
		}
	}
	return all, nil
}

// sortByKey puts a list in the one order the provider reads every list in:
// by key, which is unique within a list (collectListing drops repeats).
func sortByKey[T any](items []T, key func(T) string) {
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}
