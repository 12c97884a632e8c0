package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// ScaleChildArg is the first argument that makes cksbench serve the scale
// scenario instead of running benchmarks (see ChildProcessScenario).
const ScaleChildArg = "-serve-scale-scenario"

// Scale defaults.
const (
	DefaultScaleWorkers    = 500
	DefaultScaleAccountVMs = 5000
)

// ScaleScenario is a running simulator holding one large cluster, as the
// measuring side needs it.
type ScaleScenario struct {
	SimAccess
	ClusterID string `json:"cluster_id"`
	// HostKey is control node 1's host key as an authorized_keys line.
	HostKey    string `json:"host_key"`
	Workers    int    `json:"workers"`
	AccountVMs int    `json:"account_vms"`
	// Setup is how long building the scenario took.
	Setup time.Duration `json:"setup"`
}

// SimAccess is how the measuring side reaches a scenario's simulator.
type SimAccess struct {
	APIURL    string `json:"api_url"`
	APIKey    string `json:"api_key"`
	SecretKey string `json:"secret_key"`
	// PrivateKey is the simulator's throwaway cluster key pair (PEM).
	PrivateKey string `json:"private_key"`
}

// simAccess is the access to env's simulator.
func simAccess(env *simEnv) SimAccess {
	return SimAccess{APIURL: env.Info.APIURL, APIKey: env.Info.APIKey, SecretKey: env.Info.SecretKey,
		PrivateKey: string(env.Sim.PrivateKeyPEM())}
}

// ScenarioSource starts the scale scenario; stop ends it.
type ScenarioSource func(ctx context.Context, workers, accountVMs int) (sc ScaleScenario, stop func(), err error)

// InProcessScenario builds the scenario in this process. The simulator's
// work then counts in this process's CPU time and allocations, so the
// runner uses ChildProcessScenario; tests use this one.
func InProcessScenario(ctx context.Context, workers, accountVMs int) (ScaleScenario, func(), error) {
	env, sc, err := buildScaleScenario(ctx, workers, accountVMs)
	if err != nil {
		return ScaleScenario{}, nil, err
	}
	return sc, env.close, nil
}

// ChildProcessScenario runs argv (normally cksbench with ScaleChildArg,
// see ServeScaleScenario) and reads the scenario from its first output
// line. Stopping closes the child's stdin, which ends it.
func ChildProcessScenario(argv ...string) ScenarioSource {
	return func(ctx context.Context, workers, accountVMs int) (ScaleScenario, func(), error) {
		var sc ScaleScenario
		stop, err := startChildScenario(ctx, argv, &sc, strconv.Itoa(workers), strconv.Itoa(accountVMs))
		return sc, stop, err
	}
}

// startChildScenario runs argv with args and decodes the scenario the child
// prints as its first output line into sc. Stopping closes the child's
// stdin, which ends it.
func startChildScenario(ctx context.Context, argv []string, sc any, args ...string) (func(), error) {
	cmd := exec.CommandContext(ctx, argv[0], slices.Concat(argv[1:], args)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		stop()
		return nil, fmt.Errorf("scenario process: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(line, sc); err != nil {
		stop()
		return nil, fmt.Errorf("scenario process printed an unexpected line: %w", err)
	}
	return stop, nil
}

// ServeScaleScenario builds the scenario from args (workers, account VMs),
// writes it as one JSON line to out and serves until in reaches EOF.
func ServeScaleScenario(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("want 2 arguments (workers, account VMs), got %d", len(args))
	}
	workers, err1 := strconv.Atoi(args[0])
	accountVMs, err2 := strconv.Atoi(args[1])
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	env, sc, err := buildScaleScenario(ctx, workers, accountVMs)
	if err != nil {
		return err
	}
	defer env.close()
	return serveScenario(sc, in, out)
}

// serveScenario writes the scenario as one JSON line to out and waits
// until in reaches EOF, while the caller's simulator serves.
func serveScenario(sc any, in io.Reader, out io.Writer) error {
	line, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	if _, err := out.Write(append(line, '\n')); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, in)
	return err
}

// scaleStrayNodeVMs are VMs named as workers but in no map: with one
// deleted map row, the drift planted so that the comparison walks its
// finding paths.
const scaleStrayNodeVMs = 3

// buildScaleScenario creates a cluster of one control node and workers
// workers, then VMs that are no nodes (other applications) until the
// account holds accountVMs VMs, plus the planted drift.
func buildScaleScenario(ctx context.Context, workers, accountVMs int) (*simEnv, ScaleScenario, error) {
	start := time.Now()
	nodeVMs := workers + 1
	if accountVMs < nodeVMs+scaleStrayNodeVMs {
		return nil, ScaleScenario{}, fmt.Errorf("%d account VMs cannot hold a cluster of %d VMs", accountVMs, nodeVMs)
	}
	env, err := startSim(nodeVMs, accountVMs) // every VM shares the cluster network
	if err != nil {
		return nil, ScaleScenario{}, err
	}
	fail := func(err error) (*simEnv, ScaleScenario, error) {
		env.close()
		return nil, ScaleScenario{}, err
	}
	ids, err := env.createClusters(ctx, []clusterSpec{{name: "scale", size: int64(workers)}})
	if err != nil {
		return fail(err)
	}
	cl, err := env.API.GetKubernetesCluster(ctx, ids[0])
	if err != nil {
		return fail(err)
	}
	if len(cl.VirtualMachines) != nodeVMs {
		return fail(fmt.Errorf("the cluster has %d VMs, want %d", len(cl.VirtualMachines), nodeVMs))
	}
	old := time.Now().Add(-2 * clusterAge)
	for range scaleStrayNodeVMs {
		if _, _, err := env.Sim.CreateStrayVM(simulator.StrayVM{ClusterID: cl.ID, Role: "worker", Created: old}); err != nil {
			return fail(err)
		}
	}
	for i := range accountVMs - nodeVMs - scaleStrayNodeVMs {
		if _, _, err := env.Sim.CreateStrayVM(simulator.StrayVM{ClusterID: cl.ID, Name: fmt.Sprintf("app-%05d", i), Created: old}); err != nil {
			return fail(err)
		}
	}
	lastWorker := cl.VirtualMachines[len(cl.VirtualMachines)-1]
	if err := env.Sim.DeleteMapRow(cl.ID, lastWorker.ID); err != nil {
		return fail(err)
	}
	hostKey := env.Sim.HostKey(cl.ID)
	if hostKey == nil {
		return fail(errors.New("the simulator has no host key for the cluster"))
	}
	return env, ScaleScenario{
		SimAccess: simAccess(env), ClusterID: cl.ID, HostKey: string(ssh.MarshalAuthorizedKey(hostKey)),
		Workers: workers, AccountVMs: accountVMs, Setup: time.Since(start),
	}, nil
}
