package cloudstack

import (
	"testing"
	"time"
)

// cloudStackGoPolls is when cloudstack-go v2.19.0's GetAsyncJobResult
// polls: at once, then after sleeps of 1 s, 2 s, 3 s, … (15 s at most).
func cloudStackGoPolls(until time.Duration) []time.Duration {
	out := []time.Duration{0}
	at, sleep := time.Duration(0), time.Duration(0)
	for at < until {
		sleep = min(sleep+time.Second, 15*time.Second)
		at += sleep
		out = append(out, at)
	}
	return out
}

// pollsFor returns, for a job of length job, how many polls a schedule
// makes until one sees it done, and the wait from its end to that poll.
func pollsFor(schedule []time.Duration, job time.Duration) (polls int, overhead time.Duration) {
	for _, at := range schedule {
		polls++
		if at >= job {
			return polls, at - job
		}
	}
	return polls, -1
}

func TestDefaultScheduleGrowsWithElapsedTime(t *testing.T) {
	t.Parallel()
	s := WaitOptions{}.Schedule(time.Hour)
	if s[0] != 750*time.Millisecond {
		t.Fatalf("first poll at %v", s[0])
	}
	prev := time.Duration(0)
	for i := 1; i < len(s); i++ {
		gap := s[i] - s[i-1]
		if gap < prev || gap > 5*time.Second {
			t.Fatalf("gap %d = %v after %v", i, gap, prev)
		}
		prev = gap
	}
	// The interval is 0.75 s + 0.35 s·√t: about 1.9 s at 10 s, 2.3 s at 20 s.
	for _, c := range []struct {
		at       time.Duration
		min, max time.Duration
	}{
		{10 * time.Second, 1800 * time.Millisecond, 1950 * time.Millisecond},
		{20 * time.Second, 2250 * time.Millisecond, 2400 * time.Millisecond},
		{5 * time.Minute, 5 * time.Second, 5 * time.Second},
	} {
		if got := (WaitOptions{}).NextInterval(c.at, time.Second); got < c.min || got > c.max {
			t.Errorf("interval at %v = %v, want %v..%v", c.at, got, c.min, c.max)
		}
	}
	// A 60 min CKS job costs about 12 polls a minute, like the 5 s cap
	// did before.
	if n, _ := pollsFor(s, time.Hour); n < 700 || n > 760 {
		t.Errorf("a 60 min job takes %d polls", n)
	}
}

// The design targets, for any job length in the benchmark's range rather
// than at four chosen lengths: at most twice cloudstack-go's polls, and on
// average at most half its wait after the job ends (a job's end falls
// anywhere in a poll interval, so averaging over lengths in steps of 10 ms
// is averaging over where in the interval it falls).
func TestDefaultScheduleAgainstCloudStackGo(t *testing.T) {
	t.Parallel()
	ours := WaitOptions{}.Schedule(time.Minute)
	theirs := cloudStackGoPolls(time.Minute)
	var oursWait, theirsWait time.Duration
	for job := time.Second; job <= 21*time.Second; job += 10 * time.Millisecond {
		n, o := pollsFor(ours, job)
		m, c := pollsFor(theirs, job)
		if float64(n) > 2*float64(m) {
			t.Errorf("a %v job: %d polls, cloudstack-go %d", job, n, m)
		}
		oursWait += o
		theirsWait += c
	}
	ratio := oursWait.Seconds() / theirsWait.Seconds()
	t.Logf("mean wait after the job ends: %.2f× cloudstack-go's", ratio)
	if ratio > 0.45 {
		t.Errorf("mean wait after the job ends is %.2f× cloudstack-go's, want at most 0.45×", ratio)
	}
}

func TestGeometricScheduleWithMultiplier(t *testing.T) {
	t.Parallel()
	o := WaitOptions{InitialInterval: 100 * time.Millisecond, MaxInterval: 400 * time.Millisecond, Multiplier: 2}
	want := []int64{100, 300, 700, 1100, 1500}
	got := o.Schedule(1500 * time.Millisecond)
	if len(got) != len(want) {
		t.Fatalf("schedule = %v", got)
	}
	for i := range want {
		if got[i].Milliseconds() != want[i] {
			t.Fatalf("schedule = %v, want %v ms", got, want)
		}
	}
	// Short test intervals stay short: the cap bounds the elapsed-time growth.
	fast := WaitOptions{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond}
	if got := fast.NextInterval(time.Minute, time.Millisecond); got != 5*time.Millisecond {
		t.Errorf("capped interval = %v", got)
	}
}
