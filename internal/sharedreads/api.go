package sharedreads

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// DefaultTTL is how long a shared list serves readers after it was asked
// for. Terraform refreshes ten resources at a time; a second covers many
// rounds of them, and is shorter than anything a person or a pipeline does
// between two changes.
const DefaultTTL = time.Second

// API is a cloudstack.API whose reads in a Shared context are served from
// shared lists, and whose writes drop every shared list.
type API struct {
	cloudstack.API
	lists *store
}

var _ cloudstack.API = (*API)(nil)

// New wraps api. ttl is how long a list serves readers; zero takes
// DefaultTTL.
func New(api cloudstack.API, ttl time.Duration) *API {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &API{API: api, lists: newStore(ttl)}
}

type sharedKey struct{}

// Shared marks ctx as a refresh's: its reads may be served from lists
// other readers of this process asked for shortly before. Never mark a
// context whose reads a change acts on.
func Shared(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedKey{}, true)
}

// isShared tells whether ctx was marked by Shared.
func isShared(ctx context.Context) bool {
	shared, _ := ctx.Value(sharedKey{}).(bool)
	return shared
}

// ListCalls is how many shared lists were asked of CloudStack since the
// start, for tests and benchmarks.
func (a *API) ListCalls() int { return a.lists.listCalls() }

// shared returns the list under key, loading it with load when no fresh
// one is held.
func shared[T any](ctx context.Context, a *API, key string, load func(context.Context) ([]T, error)) ([]T, error) {
	v, err := a.lists.get(ctx, key, func(ctx context.Context) (any, error) { return load(ctx) })
	if err != nil {
		return nil, err
	}
	list, ok := v.([]T)
	if !ok {
		return nil, fmt.Errorf("shared list %s holds %T, not %T", key, v, list)
	}
	return list, nil
}
