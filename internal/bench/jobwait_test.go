package bench

import (
	"errors"
	"fmt"
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
	if len(figs) != 2*len(durations)+3 {
		t.Fatalf("%d figures, want %d", len(figs), 2*len(durations)+3)
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

	ours := ourPollSchedule(20 * time.Second)
	if ours[0] != cloudstack.DefaultJobInitialInterval {
		t.Errorf("first poll at %v", ours[0])
	}
	prevGap := time.Duration(0)
	for i := 1; i < len(ours); i++ {
		gap := ours[i] - ours[i-1]
		if gap < prevGap || gap > cloudstack.DefaultJobMaxInterval {
			t.Errorf("gap %d = %v after %v (cap %v)", i, gap, prevGap, cloudstack.DefaultJobMaxInterval)
		}
		prevGap = gap
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
			{Waiter: WaiterOurs, Job: 9 * time.Second, Overhead: 1400 * time.Millisecond, Polls: 6},
			{Waiter: WaiterCloudStackGo, Job: 9 * time.Second, Overhead: time.Second, Polls: 5},
		},
	}
	// Medians: ours (0.06+1.4)/2 = 0.73 s, cloudstack-go 1.5 s: 0.49×, a pass;
	// the worst gap is only explained when a target is missed.
	s := r.Section()
	for _, n := range s.Notes {
		if strings.HasPrefix(n, "MISS") {
			t.Fatalf("unexpected miss: %s", n)
		}
	}
	r.Samples[1].Overhead = time.Second // cloudstack-go median now 1 s: 0.73×, a miss
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
