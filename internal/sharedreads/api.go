package sharedreads

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// DefaultTTL is how long a shared list serves readers after it was asked
// for. Terraform refreshes ten resources at a time; a second covers many
// rounds of them, and is shorter than anything a person or a pipeline does
// between two changes.
const DefaultTTL = time.Second

// DefaultShareFrom is the first cluster read of a process served from the
// shared lists: the first reads, as many as Terraform's parallelism, go to
// CloudStack one by one. A workspace of a few clusters then never lists the
// whole cloud (an administrator's lists hold every account's clusters and
// rules), and a workspace of many lists it once for all of them.
const DefaultShareFrom = 11

// Options tune New.
type Options struct {
	// TTL is how long a list serves readers after it was answered; zero
	// takes DefaultTTL.
	TTL time.Duration
	// ShareFrom is the number of the first Shared cluster read of the
	// process that the shared lists serve, and from which the rule reads
	// are shared too; zero takes DefaultShareFrom, one shares from the
	// first read.
	ShareFrom int
}

// API is a cloudstack.API whose reads in a Shared context are served from
// shared lists, and whose writes drop every shared list.
type API struct {
	cloudstack.API
	lists     *store
	shareFrom int64
	// clusterReads counts the Shared cluster reads so far.
	clusterReads atomic.Int64
}

var _ cloudstack.API = (*API)(nil)

// New wraps api.
func New(api cloudstack.API, opts Options) *API {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.ShareFrom <= 0 {
		opts.ShareFrom = DefaultShareFrom
	}
	return &API{API: api, lists: newStore(opts.TTL), shareFrom: int64(opts.ShareFrom)}
}

// sharing tells whether ctx's reads are served from the shared lists: it
// is Shared, and the process has read enough clusters.
func (a *API) sharing(ctx context.Context) bool {
	return isShared(ctx) && a.clusterReads.Load() >= a.shareFrom
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

// shared returns the value under key, loading it with load when no fresh
// one is held. Each reader gets its own copy of the top level of a list.
func shared[T any](ctx context.Context, a *API, key string, load func(context.Context) (T, error)) (T, error) {
	var zero T
	v, err := a.lists.get(ctx, key, func(ctx context.Context) (any, error) { return load(ctx) })
	if err != nil {
		return zero, err
	}
	val, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("shared read %s holds %T, not %T", key, v, zero)
	}
	return val, nil
}

// sharedList is shared for a list, copied for each reader.
func sharedList[T any](ctx context.Context, a *API, key string, load func(context.Context) ([]T, error)) ([]T, error) {
	list, err := shared(ctx, a, key, load)
	return slices.Clone(list), err
}
