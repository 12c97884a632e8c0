package bench

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// jobServer is a loopback CloudStack endpoint that answers only
// queryAsyncJobResult, for jobs that finish at a chosen instant. The job
// waiter figure measures the client side, so the server answers at once
// and knows each job's completion time to the nanosecond, which the
// simulator's one-second "completed" field cannot give.
type jobServer struct {
	mu   sync.Mutex
	jobs map[string]*fakeJob

	ln  net.Listener
	srv *http.Server
}

// fakeJob is one job: pending until doneAt, then succeeded.
type fakeJob struct {
	doneAt time.Time
	polls  int
}

// newJobServer listens on 127.0.0.1 and serves until Close.
func newJobServer() (*jobServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &jobServer{jobs: map[string]*fakeJob{}, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// apiURL is the server's /client/api URL.
func (s *jobServer) apiURL() string { return "http://" + s.ln.Addr().String() + "/client/api" }

// close stops the server.
func (s *jobServer) close() error {
	err := s.srv.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// addJob registers a job that succeeds from doneAt on.
func (s *jobServer) addJob(id string, doneAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobs[id] = &fakeJob{doneAt: doneAt}
}

// polls is how many times the job was queried.
func (s *jobServer) polls(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.jobs[id]; j != nil {
		return j.polls
	}
	return 0
}

// poll records one query and tells whether the job has finished.
func (s *jobServer) poll(id string, now time.Time) (known, done bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	if j == nil {
		return false, false
	}
	j.polls++
	return true, !now.Before(j.doneAt)
}

func (s *jobServer) serve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeAPIError(w, "errorresponse", http.StatusBadRequest, "malformed request")
		return
	}
	if r.Form.Get("command") != "queryAsyncJobResult" {
		writeAPIError(w, "errorresponse", 432, "The given command does not exist or it is not available for user")
		return
	}
	id := r.Form.Get("jobid")
	known, done := s.poll(id, time.Now())
	if !known {
		writeAPIError(w, "queryasyncjobresultresponse", 431, "Unable to find job by id "+id)
		return
	}
	body := map[string]any{
		"jobid":           id,
		"cmd":             "org.apache.cloudstack.api.command.user.kubernetes.cluster.ScaleKubernetesClusterCmd",
		"jobstatus":       0,
		"jobprocstatus":   0,
		"jobresultcode":   0,
		"jobinstancetype": "KubernetesCluster",
	}
	if done {
		body["jobstatus"] = 1
		body["jobresulttype"] = "object"
		body["jobresult"] = map[string]any{"kubernetescluster": map[string]any{"id": "bench-cluster", "name": "bench"}}
	}
	writeJSON(w, http.StatusOK, map[string]any{"queryasyncjobresultresponse": body})
}

// writeAPIError writes CloudStack's error envelope with the code as HTTP status.
func writeAPIError(w http.ResponseWriter, key string, code int, text string) {
	writeJSON(w, code, map[string]any{key: map[string]any{"uuidList": []string{}, "errorcode": code, "errortext": text}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
