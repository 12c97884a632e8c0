package driftcheck

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes/sshlister"
)

// barrier lets calls through only once all of them have arrived, so it
// proves they run at the same time: called one after another, the first
// would never pass. The wait is bounded so that such a bug fails instead of
// hanging.
type barrier struct {
	mu      sync.Mutex
	arrived map[string]bool
	want    int
	all     chan struct{}
}

func newBarrier(want int) *barrier {
	return &barrier{arrived: map[string]bool{}, want: want, all: make(chan struct{})}
}

func (b *barrier) arrive(ctx context.Context, name string) error {
	b.mu.Lock()
	if !b.arrived[name] {
		b.arrived[name] = true
		if len(b.arrived) == b.want {
			close(b.all)
		}
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(20 * time.Second):
		b.mu.Lock()
		defer b.mu.Unlock()
		return fmt.Errorf("%s waited alone: only %v arrived, the views are not fetched concurrently", name, b.arrived)
	}
}

// barrierAPI holds the three CloudStack views at the barrier.
type barrierAPI struct {
	API
	b *barrier
}

func (a barrierAPI) ListVirtualMachines(ctx context.Context, p cloudstack.ListVMsParams) ([]cloudstack.VirtualMachine, error) {
	if err := a.b.arrive(ctx, "vms"); err != nil {
		return nil, err
	}
	return a.API.ListVirtualMachines(ctx, p)
}

func (a barrierAPI) ListFirewallRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.FirewallRule, error) {
	if err := a.b.arrive(ctx, "firewall"); err != nil {
		return nil, err
	}
	return a.API.ListFirewallRules(ctx, p)
}

func (a barrierAPI) ListPortForwardingRules(ctx context.Context, p cloudstack.ListRulesParams) ([]cloudstack.PortForwardingRule, error) {
	if err := a.b.arrive(ctx, "forwards"); err != nil {
		return nil, err
	}
	return a.API.ListPortForwardingRules(ctx, p)
}

// barrierListers holds the node listing at the barrier too.
type barrierListers struct {
	DefaultListers
	b *barrier
}

func (f barrierListers) SSH(cfg sshlister.Config) (nodes.Lister, error) {
	l, err := f.DefaultListers.SSH(cfg)
	if err != nil {
		return nil, err
	}
	return barrierLister{l, f.b}, nil
}

type barrierLister struct {
	nodes.Lister
	b *barrier
}

func (l barrierLister) ListNodes(ctx context.Context) ([]nodes.Node, error) {
	if err := l.b.arrive(ctx, "nodes"); err != nil {
		return nil, err
	}
	return l.Lister.ListNodes(ctx)
}

func TestCheckFetchesTheViewsConcurrently(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "parallel", Size: 1})
	b := newBarrier(4)
	c := &Checker{API: barrierAPI{API: e.API, b: b}, Listers: barrierListers{b: b}}

	res, st, err := c.Check(context.Background(), e.sshRequest(cl.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !res.NodesChecked || !res.InSync {
		t.Fatalf("result %s", describe(res))
	}
	if st.CloudStackRequests() != 5 {
		t.Fatalf("calls %v", st.CloudStackCalls)
	}
}

// failingAPI fails one command.
type failingAPI struct {
	API
	command string
}

func (a failingAPI) ListVirtualMachines(ctx context.Context, p cloudstack.ListVMsParams) ([]cloudstack.VirtualMachine, error) {
	if a.command == "listVirtualMachines" {
		return nil, errors.New("injected VM list failure")
	}
	return a.API.ListVirtualMachines(ctx, p)
}

func TestCheckFailsWhenAViewCannotBeRead(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t)
	cl := e.NewCluster(cloudstack.CreateClusterParams{Name: "apifail", Size: 1})
	e.Sim.FailNextCalls("listFirewallRules", 1, 530, "Injected failure")

	_, _, err := e.checker().Check(context.Background(), e.sshRequest(cl.ID))
	var csErr *cloudstack.Error
	if !errors.As(err, &csErr) || csErr.ErrorCode != 530 || csErr.Command != "listFirewallRules" {
		t.Fatalf("error %v, want the 530 of listFirewallRules", err)
	}

	c := &Checker{API: failingAPI{API: e.API, command: "listVirtualMachines"}}
	if _, _, err := c.Check(context.Background(), e.sshRequest(cl.ID)); err == nil || err.Error() != "injected VM list failure" {
		t.Fatalf("error %v, want the VM list failure", err)
	}
}
