package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Route describes one admin API route: POST routes take a JSON object
// (values may be JSON strings, so the cksim CLI can send key=value pairs).
type Route struct {
	Method string
	Path   string
	Fields []string
	Help   string
}

// adminRoute binds a route to its handler.
type adminRoute struct {
	Route
	handle func(s *handler, a adminArgs) (any, error)
}

// Routes lists the admin API, under /admin/, for documentation and the
// cksim admin subcommand (whose op names are the paths with "/" as "-").
func Routes() []Route {
	out := make([]Route, 0, len(adminRoutes))
	for _, r := range adminRoutes {
		out = append(out, r.Route)
	}
	return out
}

var adminRoutes = []adminRoute{
	{Route{"POST", "map/delete", []string{"cluster_id", "vm_id"}, "delete a VM map row (kept for map/restore)"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.DeleteMapRow(a.str("cluster_id"), a.str("vm_id"))
		}},
	{Route{"POST", "map/restore", []string{"cluster_id", "vm_id"}, "restore a deleted VM map row with its id"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.RestoreMapRow(a.str("cluster_id"), a.str("vm_id"))
		}},
	{Route{"POST", "map/insert", []string{"cluster_id", "vm_id", "control", "etcd", "external", "node_version", "manual_upgrade"},
		"insert a VM map row for any VM id (expunged or non-existent too)"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.InsertMapRow(a.str("cluster_id"), a.str("vm_id"), MapRowSpec{Control: a.boolean("control"),
				Etcd: a.boolean("etcd"), External: a.boolean("external"), NodeVersion: a.str("node_version"),
				ManualUpgrade: a.boolean("manual_upgrade")})
		}},
	{Route{"POST", "kubelet/stop", []string{"vm_id"}, "stop a VM's kubelet: its node stays, NotReady"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.StopKubelet(a.str("vm_id"), true)
		}},
	{Route{"POST", "kubelet/start", []string{"vm_id"}, "start a VM's kubelet: the node is Ready (registered again if deleted)"},
		func(s *handler, a adminArgs) (any, error) { return nil, s.StartKubelet(a.str("vm_id")) }},
	{Route{"POST", "node/delete", []string{"vm_id"}, "delete a VM's Kubernetes node object (kubectl delete node)"},
		func(s *handler, a adminArgs) (any, error) { return nil, s.DeleteKubeNode(a.str("vm_id")) }},
	{Route{"POST", "node/fqdn", []string{"vm_id", "fqdn"}, "register a VM's node under an FQDN"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.RegisterNodeFQDN(a.str("vm_id"), a.str("fqdn"))
		}},
	{Route{"POST", "node/version", []string{"vm_id", "version"},
		"make a VM's kubelet report another version, as a node upgraded by hand (its map row keeps its version)"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.SetKubeletVersion(a.str("vm_id"), a.str("version"))
		}},
	{Route{"POST", "vm/stray", []string{"cluster_id", "role", "name", "created", "state", "join"},
		"create a VM named like a node of the cluster but not in its map (created: RFC 3339)"},
		func(s *handler, a adminArgs) (any, error) {
			created, err := a.time("created")
			if err != nil {
				return nil, err
			}
			id, name, err := s.CreateStrayVM(StrayVM{ClusterID: a.str("cluster_id"), Role: a.str("role"), Name: a.str("name"),
				Created: created, State: a.str("state"), Join: a.boolean("join")})
			return map[string]string{"id": id, "name": name}, err
		}},
	{Route{"POST", "vm/state", []string{"vm_id", "state"}, "set a VM's state"},
		func(s *handler, a adminArgs) (any, error) { return nil, s.SetVMState(a.str("vm_id"), a.str("state")) }},
	{Route{"POST", "vm/expunge", []string{"vm_id"}, "destroy and expunge a VM (its PFs are revoked; map row and node stay)"},
		func(s *handler, a adminArgs) (any, error) { return nil, s.ExpungeVM(a.str("vm_id")) }},
	{Route{"POST", "vm/offering", []string{"vm_id", "offering_id"}, "put a VM on another service offering"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.SetVMOffering(a.str("vm_id"), a.str("offering_id"))
		}},
	{Route{"POST", "cluster/offering", []string{"cluster_id", "role", "offering_id"},
		"put every VM of a node type (control, worker, etcd) on another service offering (the cluster's records stay)"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.SetNodeOffering(a.str("cluster_id"), a.str("role"), a.str("offering_id"))
		}},
	{Route{"POST", "rule/delete", []string{"rule_id"}, "delete a firewall, port-forwarding or LB rule"},
		func(s *handler, a adminArgs) (any, error) { return nil, s.DeleteRule(a.str("rule_id")) }},
	{Route{"POST", "acl-item/delete", []string{"item_id"}, "delete a network ACL item"},
		func(s *handler, a adminArgs) (any, error) { return nil, s.DeleteACLItem(a.str("item_id")) }},
	{Route{"POST", "cluster/node-count", []string{"cluster_id", "node_count"},
		"correct a cluster's node_count in the database, as an administrator does after a failed scale"},
		func(s *handler, a adminArgs) (any, error) {
			n, err := a.integer("node_count", -1)
			if err != nil {
				return nil, err
			}
			return nil, s.SetClusterNodeCount(a.str("cluster_id"), int64(n))
		}},
	{Route{"POST", "cluster/state", []string{"cluster_id", "state"}, "set a cluster's state"},
		func(s *handler, a adminArgs) (any, error) {
			return nil, s.SetClusterState(a.str("cluster_id"), a.str("state"))
		}},
	{Route{"GET", "cluster/hostkey", []string{"cluster_id"}, "the cluster's SSH host key (authorized_keys format)"},
		func(s *handler, a adminArgs) (any, error) {
			key := s.HostKey(a.str("cluster_id"))
			if key == nil {
				return nil, fmt.Errorf("host key of cluster %s: %w", a.str("cluster_id"), ErrNotFound)
			}
			return map[string]string{"host_key": strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))}, nil
		}},
	{Route{"POST", "fault/api", []string{"command", "count", "code", "text"}, "make the next count calls of a command fail"},
		func(s *handler, a adminArgs) (any, error) {
			n, err := a.integer("count", 1)
			if err != nil {
				return nil, err
			}
			code, err := a.integer("code", wire.CodeInternalError)
			if err != nil {
				return nil, err
			}
			if a.str("command") == "" {
				return nil, errors.New("command is required")
			}
			s.FailNextCalls(a.str("command"), n, code, a.str("text"))
			return nil, nil
		}},
	{Route{"POST", "fault/lost", []string{"command", "count"}, "run the next count calls of a command but answer them with a proxy's 504"},
		func(s *handler, a adminArgs) (any, error) {
			n, err := a.integer("count", 1)
			if err != nil {
				return nil, err
			}
			if a.str("command") == "" {
				return nil, errors.New("command is required")
			}
			s.LoseNextResponses(a.str("command"), n)
			return nil, nil
		}},
	{Route{"POST", "fault/job", []string{"op", "step", "count", "message"}, "make the next count jobs of op fail at step (see GET jobsteps)"},
		func(s *handler, a adminArgs) (any, error) {
			n, err := a.integer("count", 1)
			if err != nil {
				return nil, err
			}
			return nil, s.FailJobStep(a.str("op"), a.str("step"), n, a.str("message"))
		}},
	{Route{"POST", "fault/latency", []string{"command", "duration"}, "delay a command (\"*\" for all) by duration (e.g. 250ms; 0 clears)"},
		func(s *handler, a adminArgs) (any, error) {
			d, err := a.duration("duration")
			if err != nil {
				return nil, err
			}
			s.SetCommandLatency(a.str("command"), d)
			return nil, nil
		}},
	{Route{"POST", "fault/ssh", []string{"latency", "drop"}, "SSH command latency and/or drop the next N commands mid-output"},
		func(s *handler, a adminArgs) (any, error) {
			if a.has("latency") {
				d, err := a.duration("latency")
				if err != nil {
					return nil, err
				}
				s.SetSSHLatency(d)
			}
			if a.has("drop") {
				n, err := a.integer("drop", 0)
				if err != nil {
					return nil, err
				}
				s.DropNextSSHCommands(n)
			}
			return nil, nil
		}},
	{Route{"POST", "fault/kubeapi", []string{"status", "count"}, "the next count Kubernetes API requests answer status"},
		func(s *handler, a adminArgs) (any, error) {
			status, err := a.integer("status", http.StatusInternalServerError)
			if err != nil {
				return nil, err
			}
			n, err := a.integer("count", 1)
			if err != nil {
				return nil, err
			}
			s.FailNextKubeAPI(status, n)
			return nil, nil
		}},
	{Route{"POST", "fault/clear", nil, "clear injected API failures, latencies and job failures"},
		func(s *handler, _ adminArgs) (any, error) { s.ClearFaults(); return nil, nil }},
	{Route{"GET", "jobsteps", nil, "job operations and their step names"},
		func(_ *handler, _ adminArgs) (any, error) { return JobSteps(), nil }},
	{Route{"GET", "dump", nil, "the full state dump (deterministic JSON)"},
		func(s *handler, _ adminArgs) (any, error) { return s.DumpState(), nil }},
	{Route{"GET", "calls", nil, "API call counters per command and SSH session count"},
		func(s *handler, _ adminArgs) (any, error) {
			return map[string]any{"calls": s.CallCounts(), "ssh_sessions": s.SSHSessions()}, nil
		}},
	{Route{"POST", "calls/reset", nil, "reset the API call counters"},
		func(s *handler, _ adminArgs) (any, error) { s.ResetCallCounts(); return nil, nil }},
	{Route{"POST", "clock/advance", []string{"duration"}, "move the simulated clock forward"},
		func(s *handler, a adminArgs) (any, error) {
			d, err := a.duration("duration")
			if err != nil {
				return nil, err
			}
			s.AdvanceClock(d)
			return nil, nil
		}},
	{Route{"POST", "scanner/run", nil, "run the cluster state scanner once, now"},
		func(s *handler, _ adminArgs) (any, error) { s.RunScanner(); return nil, nil }},
	{Route{"POST", "scanner/interval", []string{"interval"}, "run the state scanner every interval (e.g. 2s; 0 stops its timer)"},
		func(s *handler, a adminArgs) (any, error) {
			if !a.has("interval") {
				return nil, errors.New("interval is required")
			}
			d, err := a.duration("interval")
			if err != nil {
				return nil, err
			}
			if d < 0 {
				return nil, errors.New("interval must not be negative")
			}
			s.SetScannerInterval(d)
			return map[string]string{"interval": s.ScannerInterval().String()}, nil
		}},
	{Route{"GET", "scanner", nil, "the state scanner's timer interval (0s: stopped)"},
		func(s *handler, _ adminArgs) (any, error) {
			return map[string]string{"interval": s.ScannerInterval().String()}, nil
		}},
	{Route{"GET", "info", nil, "connection details and seed ids"},
		func(s *handler, _ adminArgs) (any, error) { return s.info(), nil }},
	{Route{"POST", "iso/download", []string{"url", "duration", "error"},
		"how later downloads of a Kubernetes version's ISO from url go: how long they take (e.g. 30s), and the error string they fail with, if any"},
		func(s *handler, a adminArgs) (any, error) {
			var d model.ISODownload
			if a.has("duration") {
				var err error
				if d.Duration, err = a.duration("duration"); err != nil {
					return nil, err
				}
			}
			d.Error = a.str("error")
			return nil, s.SetISODownload(a.str("url"), d)
		}},
}

// adminHandler serves /admin/<path>. It has no authentication: it is a test
// and demo control plane bound to the simulator's loopback listener.
// handler is what an admin route runs on: the admin API, and the
// simulator's Info, which the routes report but this package cannot build.
type handler struct {
	*Admin
	info func() any
}

// Handler serves the admin API under /admin/; info is the simulator's Info,
// which the info route returns.
func (s *Admin) Handler(info func() any) http.Handler {
	h := &handler{Admin: s, info: info}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.Trim(strings.TrimPrefix(r.URL.Path, "/admin"), "/")
		for _, route := range adminRoutes {
			if route.Path != path {
				continue
			}
			if r.Method != route.Method {
				wire.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use " + route.Method})
				return
			}
			args, err := readAdminArgs(r)
			if err != nil {
				wire.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
			result, err := route.handle(h, args)
			switch {
			case errors.Is(err, ErrNotFound):
				wire.WriteJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
			case err != nil:
				wire.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			case result == nil:
				wire.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
			default:
				wire.WriteJSON(w, http.StatusOK, result)
			}
			return
		}
		wire.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "unknown admin route /admin/" + path})
	})
}

// adminArgs are the decoded arguments of an admin request.
type adminArgs map[string]any

func readAdminArgs(r *http.Request) (adminArgs, error) {
	args := adminArgs{}
	for k, vs := range r.URL.Query() {
		if len(vs) > 0 {
			args[k] = vs[0]
		}
	}
	if r.Method == http.MethodPost && r.ContentLength != 0 {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return nil, fmt.Errorf("request body must be a JSON object: %w", err)
		}
		for k, v := range body {
			args[k] = v
		}
	}
	return args, nil
}

func (a adminArgs) has(key string) bool { _, ok := a[key]; return ok }

func (a adminArgs) str(key string) string {
	switch v := a[key].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

func (a adminArgs) boolean(key string) bool {
	switch v := a[key].(type) {
	case bool:
		return v
	case string:
		b, _ := strconv.ParseBool(v)
		return b
	default:
		return false
	}
}

func (a adminArgs) integer(key string, def int) (int, error) {
	switch v := a[key].(type) {
	case nil:
		return def, nil
	case float64:
		return int(v), nil
	case string:
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not an integer", key, v)
		}
		return n, nil
	default:
		return 0, fmt.Errorf("%s: not an integer", key)
	}
}

// duration accepts "250ms"-style strings or a number of seconds.
func (a adminArgs) duration(key string) (time.Duration, error) {
	switch v := a[key].(type) {
	case nil:
		return 0, nil
	case float64:
		return time.Duration(v * float64(time.Second)), nil
	case string:
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", key, err)
		}
		return d, nil
	default:
		return 0, fmt.Errorf("%s: not a duration", key)
	}
}

func (a adminArgs) time(key string) (time.Time, error) {
	v := a.str(key)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", key, err)
	}
	return t, nil
}
