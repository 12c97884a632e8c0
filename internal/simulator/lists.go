package simulator

import "github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"

// listBody orders items (given in the server's real order) as
// Options.ListOrder says, pages them and builds a list response: count is
// the total that matched; an empty result is {} and a page past the end has
// only count. Paging applies after the order, as the database's LIMIT
// follows its ORDER BY. Callers hold s.mu.
func (s *Simulator) listBody(p wire.Params, objectName string, items []map[string]any) (map[string]any, *wire.APIError) {
	return listBodyOf(s, p, objectName, items, func(m map[string]any) map[string]any { return m })
}

// listBodyOf is listBody for items rendered only once their page is
// returned, as the server's paged query reads one page: a list of
// thousands of VMs then renders one page per call, not all of them.
func listBodyOf[T any](s *Simulator, p wire.Params, objectName string, items []T, render func(T) map[string]any) (map[string]any, *wire.APIError) {
	items = orderList(s, items)
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
