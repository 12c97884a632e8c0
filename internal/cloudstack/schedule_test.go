package cloudstack

import (
	"slices"
	"testing"
	"time"
)

// cloudStackGoPolls is when cloudstack-go v2.19.0's GetAsyncJobResult
// polls, transcribed from its loop (cloudstack/cloudstack.go): a poll, then
// `if timer < 15 { timer++ }; time.Sleep(timer * time.Second)`, again.
func cloudStackGoPolls(until time.Duration) []time.Duration {
	out := []time.Duration{0}
	at, timer := time.Duration(0), 0
	for at < until {
		if timer < 15 {
			timer++
		}
		at += time.Duration(timer) * time.Second
		out = append(out, at)
	}
	return out
}

// pollsFor returns, for a job of length job, how many polls a schedule
// makes until one sees it done (the first at or after its end), and the
// wait from its end to that poll.
func pollsFor(schedule []time.Duration, job time.Duration) (polls int, overhead time.Duration) {
	for _, at := range schedule {
		polls++
		if at >= job {
			return polls, at - job
		}
	}
	return polls, -1
}

// scheduleHorizon is how far the proofs below look: past the point from
// which both schedules repeat every 15 s (105 s), and over the length of a
// long CKS create.
const scheduleHorizon = 20 * time.Minute

// jobLengths are the lengths the proofs go through: every 10 ms from 0 to
// scheduleHorizon, and every instant of either schedule, where a job that
// ends at the poll is seen by it and one that ends just after is not.
func jobLengths(ours, theirs []time.Duration) []time.Duration {
	var out []time.Duration
	for job := time.Duration(0); job <= scheduleHorizon; job += 10 * time.Millisecond {
		out = append(out, job)
	}
	for _, at := range slices.Concat(ours, theirs) {
		if at <= scheduleHorizon {
			out = append(out, at, at+time.Nanosecond)
		}
	}
	return out
}

func TestCloudStackGoScheduleIsItsSource(t *testing.T) {
	t.Parallel()
	if got, want := (WaitOptions{}).CloudStackGoSchedule(scheduleHorizon), cloudStackGoPolls(scheduleHorizon); !slices.Equal(got, want) {
		t.Fatalf("CloudStackGoSchedule = %v\nwant %v", got, want)
	}
}

// Every poll of cloudstack-go's is one of ours, and ours has more.
func TestScheduleHoldsEveryCloudStackGoPoll(t *testing.T) {
	t.Parallel()
	ours := WaitOptions{}.Schedule(scheduleHorizon)
	for _, at := range cloudStackGoPolls(scheduleHorizon) {
		if _, found := slices.BinarySearch(ours, at); !found {
			t.Errorf("no poll at %v, where cloudstack-go polls", at)
		}
	}
}

// The guarantee on the wait after a job ends, for every job length: never
// longer than cloudstack-go's, and at most half the cloudstack-go sleep the
// job ends in (cloudstack-go's is up to the whole sleep). Over lengths
// spread evenly, ours is then half of cloudstack-go's or less on average.
func TestScheduleNeverWaitsLongerThanCloudStackGo(t *testing.T) {
	t.Parallel()
	ours := WaitOptions{}.Schedule(scheduleHorizon + time.Minute)
	theirs := cloudStackGoPolls(scheduleHorizon + time.Minute)
	var oursSum, theirsSum time.Duration
	for _, job := range jobLengths(ours, theirs) {
		_, o := pollsFor(ours, job)
		n, c := pollsFor(theirs, job)
		sleep := theirs[n-1]
		if n > 1 {
			sleep -= theirs[n-2]
		}
		if o > c || o > sleep/jobPollsPerSleep {
			t.Fatalf("a %v job: seen %v after its end, cloudstack-go %v (in its sleep of %v)", job, o, c, sleep)
		}
		if job%(10*time.Millisecond) == 0 {
			oursSum += o
			theirsSum += c
		}
	}
	mean := oursSum.Seconds() / theirsSum.Seconds()
	t.Logf("mean wait after the job ends, lengths 0-%v: %.3f× cloudstack-go's", scheduleHorizon, mean)
	if mean > 1.0/jobPollsPerSleep {
		t.Errorf("mean wait after the job ends is %.3f× cloudstack-go's, want at most 1/%d", mean, jobPollsPerSleep)
	}
}

// The price, for every job length: at most jobPollsPerSleep times
// cloudstack-go's polls while the cap leaves its sleeps in that many parts
// (jobs up to 55 s with the defaults), and at most ceil(15 s / 5 s) = 3
// times once the cap splits them further.
func TestSchedulePollsAtMostKTimesCloudStackGo(t *testing.T) {
	t.Parallel()
	o := WaitOptions{}.withDefaults()
	ours := o.Schedule(scheduleHorizon + time.Minute)
	theirs := cloudStackGoPolls(scheduleHorizon + time.Minute)
	capped := int((cloudStackGoMaxSleeps*o.Unit + o.MaxInterval - 1) / o.MaxInterval)
	worst, worstUncapped := 0.0, 0.0
	for _, job := range jobLengths(ours, theirs) {
		n, _ := pollsFor(ours, job)
		m, _ := pollsFor(theirs, job)
		x := float64(n) / float64(m)
		worst = max(worst, x)
		// The sleep the job ends in: begin < job <= begin+sleep.
		if begin, _ := o.cloudStackGoSleepAt(max(job-time.Nanosecond, 0)); begin < o.cappedFrom() {
			worstUncapped = max(worstUncapped, x)
		}
	}
	t.Logf("worst poll ratio: %.2f× before the cap bites (jobs up to %v), %.2f× overall", worstUncapped, o.cappedFrom(), worst)
	if worstUncapped > jobPollsPerSleep || worstUncapped == 0 {
		t.Errorf("up to %v: %.2f× cloudstack-go's polls, want at most %d×", o.cappedFrom(), worstUncapped, jobPollsPerSleep)
	}
	if worst > float64(capped) {
		t.Errorf("%.2f× cloudstack-go's polls, want at most %d×", worst, capped)
	}
}

// cappedFrom is where MaxInterval first splits one of cloudstack-go's
// sleeps into more than jobPollsPerSleep parts: its begin.
func (o WaitOptions) cappedFrom() time.Duration {
	for at := time.Duration(0); ; {
		begin, sleep := o.cloudStackGoSleepAt(at)
		if o.partsOf(sleep) > jobPollsPerSleep {
			return begin
		}
		at = begin + sleep
	}
}

// Long CKS jobs are polled every MaxInterval at most, and, once
// cloudstack-go's sleeps stop growing, exactly: 12 polls a minute.
func TestScheduleGapsAreCapped(t *testing.T) {
	t.Parallel()
	o := WaitOptions{}.withDefaults()
	s := o.Schedule(time.Hour)
	steady := o.CloudStackGoSchedule(time.Hour)[cloudStackGoMaxSleeps-1]
	for i := 1; i < len(s); i++ {
		gap := s[i] - s[i-1]
		if gap <= 0 || gap > o.MaxInterval || (s[i-1] >= steady && gap != o.MaxInterval) {
			t.Fatalf("gap from %v to %v", s[i-1], s[i])
		}
	}
	n, _ := pollsFor(s, time.Hour)
	if perMinute := float64(n) / 60; perMinute < 12 || perMinute > 12.5 {
		t.Errorf("a 60 min job takes %d polls, %.2f a minute", n, perMinute)
	}
}

// NextInterval is a pure function of the time elapsed: from anywhere
// between two polls of the schedule, it waits until the later one.
func TestNextIntervalFromAnyElapsedTime(t *testing.T) {
	t.Parallel()
	s := WaitOptions{}.Schedule(5 * time.Minute)
	for i := 1; i < len(s); i++ {
		for _, elapsed := range []time.Duration{s[i-1], s[i-1] + 1, (s[i-1] + s[i]) / 2, s[i] - 1} {
			if got := (WaitOptions{}).NextInterval(elapsed); elapsed+got != s[i] {
				t.Fatalf("NextInterval(%v) = %v: polls at %v, want %v", elapsed, got, elapsed+got, s[i])
			}
		}
	}
	if got := (WaitOptions{}).NextInterval(-time.Second); got != s[1] {
		t.Errorf("NextInterval before the start = %v, want %v", got, s[1])
	}
}

// Unit scales the whole schedule, and MaxInterval with it unless set.
// The parts of a sleep end on whole nanoseconds, rounded up.
func TestScheduleUnit(t *testing.T) {
	t.Parallel()
	full := WaitOptions{}.Schedule(10 * time.Minute)
	fast := WaitOptions{Unit: time.Millisecond}.Schedule(600 * time.Millisecond)
	if len(fast) != len(full) {
		t.Fatalf("%d polls at 1 ms units, %d at 1 s", len(fast), len(full))
	}
	for i := range full {
		// Equal up to the nanosecond a part's end is rounded up to.
		if d := fast[i]*1000 - full[i]; d < 0 || d >= time.Microsecond {
			t.Fatalf("poll %d at %v with 1 ms units, %v with 1 s", i, fast[i], full[i])
		}
	}
	tight := WaitOptions{Unit: time.Millisecond, MaxInterval: 2 * time.Millisecond}.Schedule(time.Second)
	for i := 1; i < len(tight); i++ {
		if gap := tight[i] - tight[i-1]; gap > 2*time.Millisecond {
			t.Fatalf("gap %v over the 2 ms cap", gap)
		}
	}
}
