package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

func TestJobServerAnswersLikeCloudStack(t *testing.T) {
	t.Parallel()
	srv, err := newJobServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.close() })
	c, err := cloudstack.New(cloudstack.Config{APIURL: srv.apiURL(), APIKey: "k", SecretKey: "s",
		Retry: cloudstack.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	srv.addJob("pending", time.Now().Add(time.Hour))
	srv.addJob("done", time.Now().Add(-time.Second))

	st, err := c.QueryAsyncJob(t.Context(), "pending")
	if err != nil || st.Status != cloudstack.JobPending || st.JobID != "pending" {
		t.Fatalf("pending job = %+v, %v", st, err)
	}
	st, err = c.QueryAsyncJob(t.Context(), "done")
	if err != nil || st.Status != cloudstack.JobSucceeded {
		t.Fatalf("finished job = %+v, %v", st, err)
	}
	cl, err := cloudstack.DecodeClusterJobResult(st.Result)
	if err != nil || cl.ID != "bench-cluster" {
		t.Fatalf("job result = %+v, %v", cl, err)
	}
	_, err = c.QueryAsyncJob(t.Context(), "unknown")
	var e *cloudstack.Error
	if !errors.As(err, &e) || e.ErrorCode != 431 {
		t.Fatalf("unknown job: %v", err)
	}
	if srv.polls("pending") != 1 || srv.polls("done") != 1 || srv.polls("unknown") != 0 {
		t.Errorf("polls = %d, %d, %d", srv.polls("pending"), srv.polls("done"), srv.polls("unknown"))
	}
}

func TestRunJobWaitShortJobs(t *testing.T) {
	t.Parallel()
	durations := []time.Duration{50 * time.Millisecond, 120 * time.Millisecond}
	res, err := RunJobWait(t.Context(), JobWaitOptions{Durations: durations, Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != len(durations)*2*2 {
		t.Fatalf("%d samples, want %d", len(res.Samples), len(durations)*4)
	}
	perWaiter := map[string]int{}
	for _, s := range res.Samples {
		perWaiter[s.Waiter]++
		// A waiter returns only after a poll saw the job finished.
		if s.Overhead < 0 || s.Polls < 1 {
			t.Errorf("sample %+v: negative overhead or no poll", s)
		}
	}
	if perWaiter[WaiterOurs] != 4 || perWaiter[WaiterCloudStackGo] != 4 {
		t.Errorf("samples per waiter = %v", perWaiter)
	}
	figs := res.Figures()
	if len(figs) != 2*len(durations)+4 {
		t.Fatalf("%d figures, want %d", len(figs), 2*len(durations)+4)
	}
	for i, f := range figs {
		hasTarget := i >= 2*len(durations)
		if (f.Verdict != Info) != hasTarget || (f.Target != "") != hasTarget {
			t.Errorf("figure %d %q: verdict %v, target %q", i, f.Name, f.Verdict, f.Target)
		}
	}
	if s := res.Section(); len(s.Notes) < 2 || s.Title == "" {
		t.Errorf("section = %+v", s)
	}
}

func TestPollSchedules(t *testing.T) {
	t.Parallel()
	// cloudstack-go v2.19.0: at once, then sleeps of 1, 2, 3, … s.
	want := []time.Duration{0, time.Second, 3 * time.Second, 6 * time.Second, 10 * time.Second, 15 * time.Second, 21 * time.Second}
	if got := cloudStackGoPollSchedule(20 * time.Second); !equalDurations(got, want) {
		t.Errorf("cloudstack-go schedule = %v, want %v", got, want)
	}
	// Past 15 s sleeps stay at 15 s.
	long := cloudStackGoPollSchedule(10 * time.Minute)
	if d := long[len(long)-1] - long[len(long)-2]; d != 15*time.Second {
		t.Errorf("late cloudstack-go sleep = %v", d)
	}

	// Ours polls at every instant of cloudstack-go's, and between them.
	ours := ourPollSchedule(20 * time.Second)
	for _, at := range want {
		if !slices.Contains(ours, at) {
			t.Errorf("our schedule %v lacks cloudstack-go's poll at %v", ours, at)
		}
	}
	for i := 1; i < len(ours); i++ {
		if gap := ours[i] - ours[i-1]; gap <= 0 || gap > cloudstack.DefaultJobMaxInterval {
			t.Errorf("gap %d = %v (cap %v)", i, gap, cloudstack.DefaultJobMaxInterval)
		}
	}
	if len(ours) <= len(want) {
		t.Errorf("our schedule %v polls no more often than cloudstack-go's", ours)
	}
	if last, beforeLast := ours[len(ours)-1], ours[len(ours)-2]; last < 20*time.Second || beforeLast >= 20*time.Second {
		t.Errorf("schedule %v does not end at the first poll after 20 s", ours)
	}
	if got := formatSchedule([]time.Duration{500 * time.Millisecond, 1250 * time.Millisecond}); got != "0.50, 1.25" {
		t.Errorf("formatSchedule = %q", got)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestJobWaitMissNoteNamesTheWorstGap(t *testing.T) {
	t.Parallel()
	r := JobWaitResult{
		Options: JobWaitOptions{Durations: []time.Duration{4 * time.Second, 9 * time.Second}, Rounds: 1},
		Samples: []JobWaitSample{
			{Waiter: WaiterOurs, Job: 4 * time.Second, Overhead: 60 * time.Millisecond, Polls: 4},
			{Waiter: WaiterCloudStackGo, Job: 4 * time.Second, Overhead: 2 * time.Second, Polls: 4},
			{Waiter: WaiterOurs, Job: 9 * time.Second, Overhead: 900 * time.Millisecond, Polls: 6},
			{Waiter: WaiterCloudStackGo, Job: 9 * time.Second, Overhead: time.Second, Polls: 5},
		},
	}
	// Means: ours (0.06+0.9)/2 = 0.48 s, cloudstack-go 1.5 s: 0.32×, and
	// never later: a pass; the worst gap is only explained when a target is
	// missed.
	s := r.Section()
	for _, n := range s.Notes {
		if strings.HasPrefix(n, "MISS") {
			t.Fatalf("unexpected miss: %s", n)
		}
	}
	r.Samples[1].Overhead = 100 * time.Millisecond // cloudstack-go's mean now 0.55 s: 0.87×, a miss
	s = r.Section()
	var miss string
	for _, n := range s.Notes {
		if strings.HasPrefix(n, "MISS") {
			miss = n
		}
	}
	sched := ourPollSchedule(9 * time.Second)
	want := fmt.Sprintf("The worst is the 9 s job: WaitForJob polls at %.2f s, just before it completes, and next at %.2f s.",
		sched[len(sched)-2].Seconds(), sched[len(sched)-1].Seconds())
	if !strings.Contains(miss, want) {
		t.Fatalf("miss note = %q, want it to contain %q", miss, want)
	}
}

// A job length where WaitForJob returns later than cloudstack-go by more
// than the measurement's resolution misses the never-later target, and the
// figure names that length.
func TestJobWaitLaterThanCloudStackGoIsAMiss(t *testing.T) {
	t.Parallel()
	sample := func(later time.Duration) JobWaitResult {
		return JobWaitResult{
			Options: JobWaitOptions{Durations: []time.Duration{time.Second, 2 * time.Second}, Rounds: 1},
			Samples: []JobWaitSample{
				{Waiter: WaiterOurs, Job: time.Second, Overhead: 10 * time.Millisecond, Polls: 3},
				{Waiter: WaiterCloudStackGo, Job: time.Second, Overhead: 900 * time.Millisecond, Polls: 2},
				{Waiter: WaiterOurs, Job: 2 * time.Second, Overhead: time.Second + later, Polls: 5},
				{Waiter: WaiterCloudStackGo, Job: 2 * time.Second, Overhead: time.Second, Polls: 3},
			},
		}
	}
	nearest := func(r JobWaitResult) Figure {
		for _, f := range r.Figures() {
			if strings.HasPrefix(f.Name, "overhead nearest cloudstack-go's") {
				return f
			}
		}
		t.Fatal("no never-later figure")
		return Figure{}
	}
	for _, c := range []struct {
		later time.Duration
		want  Verdict
	}{{0, Pass}, {jobWaitResolution, Pass}, {jobWaitResolution + time.Millisecond, Miss}} {
		f := nearest(sample(c.later))
		if f.Verdict != c.want || !strings.Contains(f.Name, "(2 s job)") {
			t.Errorf("%v later: %q %v, want %v", c.later, f.Name, f.Verdict, c.want)
		}
	}
}

// The default job lengths sample each of cloudstack-go's first sleeps a
// quarter and three quarters in.
func TestDefaultJobDurationsSampleEverySleep(t *testing.T) {
	t.Parallel()
	polls := cloudStackGoPollSchedule(time.Minute)
	if len(DefaultJobDurations) != 2*jobWaitSleeps {
		t.Fatalf("%d lengths: %v", len(DefaultJobDurations), DefaultJobDurations)
	}
	for i := range jobWaitSleeps {
		from, to := polls[i], polls[i+1]
		early, late := DefaultJobDurations[2*i], DefaultJobDurations[2*i+1]
		if 4*(early-from) != to-from || 4*(to-late) != to-from {
			t.Errorf("sleep %v-%v: lengths %v and %v", from, to, early, late)
		}
	}
}
