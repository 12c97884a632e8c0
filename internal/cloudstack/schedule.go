package cloudstack

import "time"

// The job poll schedule.
//
// cloudstack-go v2.19.0's GetAsyncJobResult (cloudstack/cloudstack.go), which
// the official CloudStack provider waits with, polls at once and then sleeps
// 1 s, 2 s, 3 s, … (15 s at most) between polls: it polls at 0, 1, 3, 6, 10,
// 15, 21, … s, and every 15 s from 105 s on. A job is seen done at the first
// poll at or after its end, so a schedule that polls at each of those instants
// sees every job no later than cloudstack-go does, whatever its length.
// WaitForJob's schedule is that one with each of cloudstack-go's sleeps split
// into equal parts: jobPollsPerSleep (2) of them, or as many as keep every
// part within MaxInterval (3 for the sleeps of 11-15 s with the 5 s default).
// With the defaults it polls at 0, 0.5, 1, 2, 3, 4.5, 6, 8, 10, 12.5, 15, 18,
// 21, … s. Every poll of cloudstack-go's is one of ours, so, for every job
// length:
//
//   - the wait from the job's end to the poll that sees it is never longer
//     than cloudstack-go's, and at most half the sleep of cloudstack-go's the
//     job ends in, where cloudstack-go's is up to the whole sleep; over
//     lengths spread evenly it is half of cloudstack-go's on average (a third
//     in the sleeps the cap splits in three);
//   - WaitForJob makes at most jobPollsPerSleep (2) times as many polls as
//     cloudstack-go for a job that ends before the cap first splits a sleep
//     further (55 s with the defaults), and at most ceil(15 units /
//     MaxInterval) (3) times for any job.
//
// schedule_test.go proves each of these by going through job lengths every
// 10 ms up to 20 min and every instant of either schedule. They hold for
// polls that take no time. A real poll does not move the later ones, because
// WaitForJob waits for the next instant counted from the wait's start,
// whereas each of cloudstack-go's sleeps starts when a poll returns, so its
// polls fall later by the polls' round trips.
const (
	// jobPollsPerSleep is how many parts each of cloudstack-go's sleeps is
	// split into at least.
	jobPollsPerSleep = 2
	// cloudStackGoMaxSleeps is the number of cloudstack-go's sleeps that grow:
	// the 15th and every later one is 15 units long.
	cloudStackGoMaxSleeps = 15
)

// Defaults for WaitOptions.
const (
	// DefaultJobUnit is the schedule's unit: cloudstack-go's sleeps grow by
	// one second each.
	DefaultJobUnit = time.Second
	// DefaultJobMaxInterval caps the wait between polls; the waits first
	// reach it at 45 s and stay at it from 105 s on: a 10-60 min CKS job is
	// polled every 5 s, 12 times a minute.
	DefaultJobMaxInterval = defaultJobMaxUnits * DefaultJobUnit
	// defaultJobMaxUnits is the cap in units, whatever the unit.
	defaultJobMaxUnits = 5
	// DefaultJobProgressInterval is how often a long wait logs its progress.
	DefaultJobProgressInterval = 30 * time.Second
)

// NextInterval is the wait from elapsed, the time since the wait began, to
// the schedule's next poll strictly after it. The schedule's first poll is
// at 0, when the wait begins.
func (o WaitOptions) NextInterval(elapsed time.Duration) time.Duration {
	o = o.withDefaults()
	elapsed = max(elapsed, 0)
	begin, sleep := o.cloudStackGoSleepAt(elapsed)
	parts := o.partsOf(sleep)
	// The parts end at ⌈sleep·k/parts⌉ for k = 1 … parts (the last exactly
	// on cloudstack-go's next poll); the first after elapsed is the smallest
	// k with sleep·k/parts > elapsed-begin.
	k := int64(elapsed-begin)*parts/int64(sleep) + 1
	end := (int64(sleep)*k + parts - 1) / parts
	return begin + time.Duration(end) - elapsed
}

// Schedule returns when the wait polls, measured from its start, from the
// first poll at 0 up to the first poll at or after until, for polls that
// take no time.
func (o WaitOptions) Schedule(until time.Duration) []time.Duration {
	out := []time.Duration{0}
	for at := time.Duration(0); at < until; {
		at += o.NextInterval(at)
		out = append(out, at)
	}
	return out
}

// CloudStackGoSchedule returns when cloudstack-go v2.19.0's
// GetAsyncJobResult polls, with this schedule's unit, from 0 up to the first
// poll at or after until, for polls that take no time.
func (o WaitOptions) CloudStackGoSchedule(until time.Duration) []time.Duration {
	o = o.withDefaults()
	out := []time.Duration{0}
	for at := time.Duration(0); at < until; {
		begin, sleep := o.cloudStackGoSleepAt(at)
		at = begin + sleep
		out = append(out, at)
	}
	return out
}

// cloudStackGoSleepAt returns the sleep of cloudstack-go's schedule that
// elapsed falls in: the poll it begins after, and its length. A poll's own
// instant begins the sleep after it.
func (o WaitOptions) cloudStackGoSleepAt(elapsed time.Duration) (begin, sleep time.Duration) {
	// The first 14 sleeps grow by a unit each and end at 1+2+…+14 units;
	// every later one is 15 units.
	const growing = cloudStackGoMaxSleeps - 1
	grown := time.Duration(growing*(growing+1)/2) * o.Unit
	if elapsed >= grown {
		last := cloudStackGoMaxSleeps * o.Unit
		whole := int64((elapsed - grown) / last)
		return grown + time.Duration(whole)*last, last
	}
	for n := 1; ; n++ {
		sleep = time.Duration(n) * o.Unit
		if elapsed < begin+sleep {
			return begin, sleep
		}
		begin += sleep
	}
}

// partsOf is how many parts a sleep of cloudstack-go's is split into: at
// least jobPollsPerSleep, and enough that none is longer than MaxInterval.
func (o WaitOptions) partsOf(sleep time.Duration) int64 {
	parts := int64((sleep + o.MaxInterval - 1) / o.MaxInterval)
	return max(parts, jobPollsPerSleep)
}
