package sharedreads

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestAFailedListIsGivenToItsWaitersAndNeverKept: readers waiting for a
// list that fails all get the failure, not what its pages before the
// failure held; the next reader asks again, and is given what that call
// answers.
func TestAFailedListIsGivenToItsWaitersAndNeverKept(t *testing.T) {
	s := newStore(time.Minute)
	release := make(chan struct{})
	failed := errors.New("530 half-way through the pages")
	const waiters = 5
	var wg sync.WaitGroup
	errs := make(chan error, waiters)
	for range waiters {
		wg.Go(func() {
			v, err := s.get(t.Context(), "k", func(context.Context) (any, error) {
				<-release
				return []string{"page 1"}, failed
			})
			if v != nil {
				t.Errorf("a waiter of a failed list was given %v", v)
			}
			errs <- err
		})
	}
	waitForCalls(t, s, 1)
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, failed) {
			t.Errorf("a waiter of a failed list got %v, want the failure", err)
		}
	}
	v, err := s.get(t.Context(), "k", func(context.Context) (any, error) { return "fresh", nil })
	if err != nil || v != "fresh" {
		t.Errorf("the read after a failed list got %v, %v, want a new call's answer", v, err)
	}
	// (A waiter that came after the failure asked again, and failed too:
	// how many did depends on the scheduler.)
	if got := s.listCalls(); got < 2 {
		t.Errorf("%d calls, want the failed one and at least the one after it", got)
	}
}

// TestACancelledReaderDoesNotCancelTheOthers: the reader whose get started
// the call gives up (its plan is interrupted, or its own timeout ends); the
// call goes on, and the readers waiting for it get its answer.
func TestACancelledReaderDoesNotCancelTheOthers(t *testing.T) {
	s := newStore(time.Minute)
	release := make(chan struct{})
	load := func(ctx context.Context) (any, error) {
		select {
		case <-release:
			return "listed", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	first, cancel := context.WithCancel(t.Context())
	firstDone := make(chan error, 1)
	go func() {
		_, err := s.get(first, "k", load)
		firstDone <- err
	}()
	waitForCalls(t, s, 1)
	waiterDone := make(chan any, 1)
	go func() {
		v, err := s.get(t.Context(), "k", load)
		if err != nil {
			t.Errorf("the waiter got %v after the first reader gave up", err)
		}
		waiterDone <- v
	}()
	cancel()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled reader got %v, want its own cancellation", err)
	}
	close(release)
	if v := <-waiterDone; v != "listed" {
		t.Errorf("the waiter got %v, want the list", v)
	}
	if got := s.listCalls(); got != 1 {
		t.Errorf("%d calls, want the one both readers shared", got)
	}
}

// TestAListInFlightAcrossAWriteIsNotServedAfterIt: a list asked for before
// a write began is not served to a reader that comes after the write, even
// when its answer arrives later.
func TestAListInFlightAcrossAWriteIsNotServedAfterIt(t *testing.T) {
	s := newStore(time.Minute)
	release := make(chan struct{})
	before := make(chan any, 1)
	go func() {
		v, _ := s.get(t.Context(), "k", func(context.Context) (any, error) {
			<-release
			return "before the write", nil
		})
		before <- v
	}()
	waitForCalls(t, s, 1)
	s.invalidate()
	close(release)
	<-before
	v, err := s.get(t.Context(), "k", func(context.Context) (any, error) { return "after the write", nil })
	if err != nil || v != "after the write" {
		t.Errorf("the reader after a write got %v, %v, want a list asked for after it", v, err)
	}
}

// waitForCalls waits until n calls were started.
func waitForCalls(t *testing.T, s *store, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.listCalls() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls started, want %d", s.listCalls(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
