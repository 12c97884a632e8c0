package core

import (
	"slices"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// ListBody orders items (given in the server's real order) as
// Options.ListOrder says, pages them and builds a list response: count is
// the total that matched; an empty result is {} and a page past the end has
// only count. Paging applies after the order, as the database's LIMIT
// follows its ORDER BY. Callers hold the lock.
func (r *Runtime) ListBody(p wire.Params, objectName string, items []map[string]any) (map[string]any, *wire.APIError) {
	return ListBodyOf(r, p, objectName, items, func(m map[string]any) map[string]any { return m })
}

// ListBodyOf is ListBody for items rendered only once their page is
// returned, as the server's paged query reads one page: a list of
// thousands of VMs then renders one page per call, not all of them.
func ListBodyOf[T any](r *Runtime, p wire.Params, objectName string, items []T, render func(T) map[string]any) (map[string]any, *wire.APIError) {
	items = OrderList(r, items)
	page, hasPage, err := p.Long("page")
	if err != nil {
		return nil, err
	}
	size, hasSize, err := p.Long("pagesize")
	if err != nil {
		return nil, err
	}
	pageItems := items
	switch {
	case hasSize && size == -1:
		if hasPage {
			return nil, wire.InvalidParam("Can't specify page parameter when pagesize is -1 (Unlimited)")
		}
	default:
		if !hasSize {
			size = wire.DefaultPageSize
		}
		if size > wire.DefaultPageSize {
			return nil, wire.InvalidParam("Page size can't exceed max allowed page size value: %d", wire.DefaultPageSize)
		}
		if size < 1 {
			return nil, wire.InvalidParam("Page size can't be less than 1: %d", size)
		}
		if !hasPage {
			page = 1
		}
		if page < 1 {
			return nil, wire.InvalidParam("Page can't be less than 1: %d", page)
		}
		start := (page - 1) * size
		switch {
		case start >= int64(len(items)):
			pageItems = nil
		default:
			pageItems = items[start:min(start+size, int64(len(items)))]
		}
	}
	if len(items) == 0 {
		return map[string]any{}, nil
	}
	body := map[string]any{"count": len(items)}
	if len(pageItems) > 0 {
		rendered := make([]map[string]any, 0, len(pageItems))
		for _, it := range pageItems {
			rendered = append(rendered, render(it))
		}
		body[objectName] = rendered
	}
	return body, nil
}

// OrderList applies Options.ListOrder to a list given in the server's real
// order. It returns a new slice. Callers hold the lock.
func OrderList[T any](r *Runtime, items []T) []T {
	out := slices.Clone(items)
	switch r.Opts.ListOrder {
	case ListOrderReversed:
		slices.Reverse(out)
	case ListOrderShuffled:
		r.orderRNG.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

// WorkerOrder puts rules listed in id order into the order the CKS workers
// read them in (Options.WorkerRuleOrder). It returns a new slice.
func (r *Runtime) WorkerOrder(rules []*model.Rule) []*model.Rule {
	out := slices.Clone(rules)
	if r.Opts.WorkerRuleOrder == WorkerRuleOrderDescending {
		slices.Reverse(out)
	}
	return out
}
