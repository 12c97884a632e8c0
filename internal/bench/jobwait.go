package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// Waiter names in JobWaitSample.
const (
	WaiterOurs         = "WaitForJob"
	WaiterCloudStackGo = "cloudstack-go GetAsyncJobResult"
)

// Job wait targets: median overhead at most 1 s; at no job length a longer
// overhead than cloudstack-go's, and on average at most half of it; no
// more than twice its polls.
const (
	jobWaitMaxOverhead   = time.Second
	jobWaitMaxOverheadX  = 0.5
	jobWaitMaxPollsRatio = 2.0
	// jobWaitSleeps is how many of cloudstack-go's sleeps the default job
	// lengths sample: its polls up to 21 s.
	jobWaitSleeps = 6
	// jobWaitResolution is how much later than its target a waiter may
	// return and still count as seeing the job at the poll the schedule
	// says: the waiters poll the same server at the same instants, but not
	// in the same microsecond. Half of cloudstack-go's mean overhead is
	// what the schedule gives for polls that take no time, so the mean
	// needs it too.
	jobWaitResolution = 10 * time.Millisecond
)

// DefaultJobDurations are the simulated job lengths measured: a quarter and
// three quarters into each of cloudstack-go's first jobWaitSleeps sleeps
// (0.25, 0.75, 1.5, 2.5, 3.75, 5.25, … s), so that the lengths sample every
// sleep evenly and the mean overhead is that of job lengths spread
// uniformly over 0-21 s.
var DefaultJobDurations = quarterPoints(jobWaitSleeps)

// quarterPoints returns the points a quarter and three quarters into each
// of cloudstack-go's first n sleeps.
func quarterPoints(n int) []time.Duration {
	var polls []time.Duration
	for until := time.Second; len(polls) <= n; until *= 2 {
		polls = cloudStackGoPollSchedule(until)
	}
	var out []time.Duration
	for i := range n {
		from, sleep := polls[i], polls[i+1]-polls[i]
		out = append(out, from+sleep/4, from+sleep*3/4)
	}
	return out
}

// JobWaitOptions configure RunJobWait.
type JobWaitOptions struct {
	// Durations are the job lengths; nil means DefaultJobDurations.
	Durations []time.Duration
	// Rounds is how many jobs of each length each waiter waits for. All run
	// at the same time, so the wall time stays that of the longest job.
	// Zero means 3.
	Rounds int
}

func (o JobWaitOptions) withDefaults() JobWaitOptions {
	if len(o.Durations) == 0 {
		o.Durations = DefaultJobDurations
	}
	o.Rounds = positiveOr(o.Rounds, 3)
	return o
}

// JobWaitSample is one waiter waiting for one job.
type JobWaitSample struct {
	Waiter string
	// Job is the job's length.
	Job time.Duration
	// Overhead is the time from the job's completion to the waiter's return.
	Overhead time.Duration
	// Polls is how many queryAsyncJobResult calls the waiter made.
	Polls int
}

// JobWaitResult is the outcome of RunJobWait.
type JobWaitResult struct {
	Options JobWaitOptions
	Samples []JobWaitSample
	// Wall is how long the whole benchmark took.
	Wall time.Duration
}

// RunJobWait starts, for each duration and round, two identical jobs on a
// loopback job server and waits for one with cloudstack.WaitForJob
// (default options, as the provider uses it) and for the other with
// cloudstack-go's async client's GetAsyncJobResult, all at the same time.
func RunJobWait(ctx context.Context, opts JobWaitOptions) (JobWaitResult, error) {
	opts = opts.withDefaults()
	srv, err := newJobServer()
	if err != nil {
		return JobWaitResult{}, fmt.Errorf("job server: %w", err)
	}
	defer func() { _ = srv.close() }()

	const apiKey, secretKey = "bench-api-key", "bench-secret-key"
	ours, err := cloudstack.New(cloudstack.Config{APIURL: srv.apiURL(), APIKey: apiKey, SecretKey: secretKey})
	if err != nil {
		return JobWaitResult{}, err
	}
	longest := time.Duration(0)
	for _, d := range opts.Durations {
		longest = max(longest, d)
	}
	// cloudstack-go's timeout is whole seconds; it must not end a wait early.
	csTimeout := int64((longest + time.Minute).Seconds())

	// GetAsyncJobResult takes no context: a cancelled run still waits for
	// its jobs, at most the longest length plus one poll interval.
	waiters := []struct {
		name string
		wait func(jobID string) error
	}{
		{WaiterOurs, func(jobID string) error {
			_, err := cloudstack.WaitForJob(ctx, ours, jobID, cloudstack.WaitOptions{Command: "scaleKubernetesCluster"})
			return err
		}},
		{WaiterCloudStackGo, func(jobID string) error {
			cs := csgo.NewAsyncClient(srv.apiURL(), apiKey, secretKey, false)
			_, err := cs.GetAsyncJobResult(jobID, csTimeout)
			return err
		}},
	}

	type pending struct {
		jobID  string
		wait   func(jobID string) error
		sample JobWaitSample
		doneAt time.Time
	}
	var jobs []*pending
	start := time.Now()
	for round := range opts.Rounds {
		for _, d := range opts.Durations {
			for _, w := range waiters {
				p := &pending{jobID: fmt.Sprintf("%s/%s/%d", w.name, d, round), wait: w.wait, doneAt: start.Add(d),
					sample: JobWaitSample{Waiter: w.name, Job: d}}
				srv.addJob(p.jobID, p.doneAt)
				jobs = append(jobs, p)
			}
		}
	}

	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	for _, p := range jobs {
		wg.Go(func() {
			err := p.wait(p.jobID)
			p.sample.Overhead = time.Since(p.doneAt)
			if err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("%s on job %s: %w", p.sample.Waiter, p.jobID, err)
				}
				errMu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return JobWaitResult{}, firstErr
	}

	res := JobWaitResult{Options: opts, Wall: time.Since(start)}
	for _, p := range jobs {
		p.sample.Polls = srv.polls(p.jobID)
		res.Samples = append(res.Samples, p.sample)
	}
	return res, nil
}

// overheads returns the overheads of waiter's samples, of one job length
// when job is non-zero.
func (r JobWaitResult) overheads(waiter string, job time.Duration) []time.Duration {
	var out []time.Duration
	for _, s := range r.Samples {
		if s.Waiter == waiter && (job == 0 || s.Job == job) {
			out = append(out, s.Overhead)
		}
	}
	return out
}

// medianPolls is the median poll count of waiter on jobs of one length.
func (r JobWaitResult) medianPolls(waiter string, job time.Duration) float64 {
	var polls []float64
	for _, s := range r.Samples {
		if s.Waiter == waiter && s.Job == job {
			polls = append(polls, float64(s.Polls))
		}
	}
	return median(polls)
}

// Figures reports each job length (informational) and the four targets:
// the median overhead over every job, the mean overhead's ratio to
// cloudstack-go's, the job length where ours comes nearest to or past
// cloudstack-go's, and the worst per-length poll count ratio.
func (r JobWaitResult) Figures() []Figure {
	const group = "Job wait"
	var figs []Figure
	worstPolls := 0.0
	var worstOurs, worstTheirs float64
	latest, latestOurs, latestTheirs := time.Duration(0), time.Duration(0), time.Duration(0)
	for _, d := range r.Options.Durations {
		ours := median(r.overheads(WaiterOurs, d))
		theirs := median(r.overheads(WaiterCloudStackGo, d))
		figs = append(figs, Figure{
			Group: group, Name: fmt.Sprintf("%s job: overhead", jobLabel(d)),
			Value: seconds(ours), Reference: "cloudstack-go " + seconds(theirs),
			Ratio: ratio(ours.Seconds(), theirs.Seconds()),
		})
		pOurs, pTheirs := r.medianPolls(WaiterOurs, d), r.medianPolls(WaiterCloudStackGo, d)
		figs = append(figs, Figure{
			Group: group, Name: fmt.Sprintf("%s job: polls", jobLabel(d)),
			Value: fmt.Sprintf("%g", pOurs), Reference: fmt.Sprintf("cloudstack-go %g", pTheirs),
			Ratio: ratio(pOurs, pTheirs),
		})
		if x := ratio(pOurs, pTheirs); x > worstPolls {
			worstPolls, worstOurs, worstTheirs = x, pOurs, pTheirs
		}
		if latest == 0 || ours-theirs > latestOurs-latestTheirs {
			latest, latestOurs, latestTheirs = d, ours, theirs
		}
	}
	ours := median(r.overheads(WaiterOurs, 0))
	theirs := median(r.overheads(WaiterCloudStackGo, 0))
	meanOurs, meanTheirs := mean(r.overheads(WaiterOurs, 0)), mean(r.overheads(WaiterCloudStackGo, 0))
	meanRatio := ratio(meanOurs.Seconds(), meanTheirs.Seconds())
	figs = append(figs,
		Figure{
			Group: group, Name: "median overhead, all jobs",
			Value: seconds(ours), Reference: "cloudstack-go " + seconds(theirs), Ratio: ratio(ours.Seconds(), theirs.Seconds()),
			Target: "≤ " + seconds(jobWaitMaxOverhead), Verdict: verdictOf(ours <= jobWaitMaxOverhead),
		},
		Figure{
			Group: group, Name: "mean overhead vs cloudstack-go",
			Value: seconds(meanOurs), Reference: "cloudstack-go " + seconds(meanTheirs), Ratio: meanRatio,
			Target:  fmt.Sprintf("≤ %.2f× cloudstack-go's + %s", jobWaitMaxOverheadX, seconds(jobWaitResolution)),
			Verdict: verdictOf(meanOurs <= time.Duration(jobWaitMaxOverheadX*float64(meanTheirs))+jobWaitResolution),
		},
		Figure{
			Group: group, Name: fmt.Sprintf("overhead nearest cloudstack-go's (%s job)", jobLabel(latest)),
			Value: seconds(latestOurs), Reference: "cloudstack-go " + seconds(latestTheirs),
			Ratio:   ratio(latestOurs.Seconds(), latestTheirs.Seconds()),
			Target:  fmt.Sprintf("≤ cloudstack-go's + %s at every length", seconds(jobWaitResolution)),
			Verdict: verdictOf(latestOurs <= latestTheirs+jobWaitResolution),
		},
		Figure{
			Group: group, Name: "polls, worst job length",
			Value: fmt.Sprintf("%g", worstOurs), Reference: fmt.Sprintf("cloudstack-go %g", worstTheirs), Ratio: worstPolls,
			Target: fmt.Sprintf("ratio ≤ %.2f", jobWaitMaxPollsRatio), Verdict: verdictOf(worstPolls <= jobWaitMaxPollsRatio),
		},
	)
	return figs
}

// Section is the job wait part of the report.
func (r JobWaitResult) Section() Section {
	s := Section{
		Title: "Job wait overhead",
		Method: fmt.Sprintf("Each job length runs %d times for each waiter, all at the same time, on a loopback server "+
			"that answers queryAsyncJobResult at once and knows each job's completion instant. Overhead is the time "+
			"from completion to the waiter's return; polls are counted by the server. The reference is cloudstack-go "+
			"v2.19.0's async client (`GetAsyncJobResult`), which the official CloudStack provider uses. The default "+
			"lengths lie a quarter and three quarters into each of cloudstack-go's first %d sleeps, so that they sample "+
			"every sleep evenly: for polls that take no time, WaitForJob's overhead is then half of cloudstack-go's on "+
			"average, and at no length longer (internal/cloudstack/schedule_test.go proves both over every length). "+
			"Wall time %s.",
			r.Options.Rounds, jobWaitSleeps, r.Wall.Round(time.Millisecond)),
		Figures: r.Figures(),
	}
	s.Notes = append(s.Notes,
		"WaitForJob polls at "+formatSchedule(ourPollSchedule(r.longest()))+" s (every poll of cloudstack-go's, and "+
			"each of its sleeps split into equal parts of at most half the sleep and at most "+
			seconds(cloudstack.DefaultJobMaxInterval)+").",
		"cloudstack-go polls at "+formatSchedule(cloudStackGoPollSchedule(r.longest()))+" s (first poll at once, then sleeps of 1 s, 2 s, 3 s, … up to 15 s).",
	)
	for _, f := range s.Figures {
		if f.Verdict == Miss {
			s.Notes = append(s.Notes, fmt.Sprintf("MISS %q: measured %s against %s (target %s). The overhead of a job is the gap "+
				"between its completion and the next poll of the schedule above, so it depends on where each job length falls "+
				"in the schedule. %s", f.Name, f.Value, orDash(f.Reference), f.Target, r.worstGap()))
		}
	}
	return s
}

// worstGap explains the job length with the largest WaitForJob overhead by
// the two polls around its completion.
func (r JobWaitResult) worstGap() string {
	var worst, worstOverhead time.Duration
	for _, d := range r.Options.Durations {
		if o := median(r.overheads(WaiterOurs, d)); o > worstOverhead {
			worst, worstOverhead = d, o
		}
	}
	if worst == 0 {
		return ""
	}
	var before time.Duration
	for _, at := range ourPollSchedule(worst) {
		if at >= worst {
			return fmt.Sprintf("The worst is the %s job: WaitForJob polls at %.2f s, just before it completes, and next at %.2f s.",
				jobLabel(worst), before.Seconds(), at.Seconds())
		}
		before = at
	}
	return ""
}

func (r JobWaitResult) longest() time.Duration {
	var d time.Duration
	for _, j := range r.Options.Durations {
		d = max(d, j)
	}
	return d
}

// ourPollSchedule is when WaitForJob polls with default options, up to
// the first poll at or after until.
func ourPollSchedule(until time.Duration) []time.Duration {
	return cloudstack.WaitOptions{}.Schedule(until)
}

// cloudStackGoPollSchedule is when GetAsyncJobResult polls: at once, then
// after sleeps of 1, 2, 3, … seconds, capped at 15.
func cloudStackGoPollSchedule(until time.Duration) []time.Duration {
	return cloudstack.WaitOptions{}.CloudStackGoSchedule(until)
}

func formatSchedule(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%.2f", d.Seconds())
	}
	return strings.Join(parts, ", ")
}

// jobLabel is a job length as the table shows it, e.g. "1.5 s".
func jobLabel(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
