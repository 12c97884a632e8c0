package cloudstack

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// maxPages stops a server that keeps returning pages forever.
const maxPages = 10000

// pageFetcher returns one 1-based page and the total CloudStack reports
// (count), which is the total that matched, not the page length.
type pageFetcher[T any] func(ctx context.Context, page, pageSize int) (items []T, total int, err error)

// collectPages fetches pages until the reported total is reached or a page
// comes back empty. key identifies an item; an item seen on an earlier page
// (rows shift when objects are created or removed while paging) is skipped.
func collectPages[T any](ctx context.Context, command string, pageSize int, key func(T) string, fetch pageFetcher[T]) ([]T, error) {
	var all []T
	seen := make(map[string]struct{})
	for page := 1; page <= maxPages; page++ {
		items, total, err := fetch(ctx, page, pageSize)
		if err != nil {
			return nil, err
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
