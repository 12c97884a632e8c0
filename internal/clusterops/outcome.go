package clusterops

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/rules"
)

// defaultUnknownOutcomeWait bounds how long the engine reads a rule's IP to
// learn what a rule call whose answer was lost did: long enough for a
// queued rule job to run on a busy management server.
const defaultUnknownOutcomeWait = 20 * time.Second

// outcomeUnknown reports whether a failed call may have been carried out:
// no answer came, something in front of CloudStack answered (a proxy's
// 502, 503 or 504), or the wait for its job ended without its outcome.
// CloudStack's own errors (431, 530, 537, …) and a failed job are answers.
func outcomeUnknown(err error) bool {
	if err == nil || cloudstack.IsJobFailure(err) {
		return false
	}
	if cloudstack.IsJobOutcomeUnknown(err) {
		return true
	}
	var ce *cloudstack.Error
	if errors.As(err, &ce) && ce.ErrorCode != 0 {
		return false
	}
	return cloudstack.DeliveryOf(err) == cloudstack.DeliverySentUnanswered || cloudstack.IsTransient(err)
}

// awaitRules reads the rules of ip on the job schedule until done says
// what a call did, or Options.UnknownOutcomeWait (or ctx) runs out; it
// reports whether done held.
func (e *Engine) awaitRules(ctx context.Context, s *Snapshot, ipID string, done func([]rules.Rule) bool) bool {
	ctx, cancel := context.WithTimeout(ctx, e.opts.UnknownOutcomeWait)
	defer cancel()
	start := time.Now()
	for {
		if now, err := e.rulesOnIP(ctx, s.projectID(), ipID); err == nil && done(now) {
			return true
		}
		if !cloudstack.Sleep(ctx, e.opts.Wait.NextInterval(time.Since(start))) {
			return false
		}
	}
}

// ruleGone reports whether rule id is no longer active on the IP.
func ruleGone(id string) func([]rules.Rule) bool {
	return func(now []rules.Rule) bool {
		return !slices.ContainsFunc(now, func(x rules.Rule) bool { return x.ID == id })
	}
}
