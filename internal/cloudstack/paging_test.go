package cloudstack

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestCollectPagesSkipsRowsThatShifted(t *testing.T) {
	t.Parallel()
	// Page 2 repeats "b" because a row was created before it while paging.
	pages := map[int][]string{1: {"a", "b"}, 2: {"b", "c"}, 3: {"d"}, 4: {}}
	var asked []int
	got, err := collectPages(t.Context(), "listX", 2, func(s string) string { return s },
		func(_ context.Context, page, pageSize int) ([]string, int, error) {
			if pageSize != 2 {
				t.Errorf("pageSize = %d", pageSize)
			}
			asked = append(asked, page)
			return pages[page], 4, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !slices.Equal(asked, []int{1, 2, 3}) {
		t.Fatalf("pages asked %v", asked)
	}
}

func TestCollectPagesStopsOnEmptyPage(t *testing.T) {
	t.Parallel()
	calls := 0
	got, err := collectPages(t.Context(), "listX", 2, func(s string) string { return s },
		func(_ context.Context, page, _ int) ([]string, int, error) {
			calls++
			if page == 1 {
				return []string{"a", "b"}, 10, nil // count claims more than exists
			}
			return nil, 10, nil
		})
	if err != nil || !slices.Equal(got, []string{"a", "b"}) || calls != 2 {
		t.Fatalf("got %v err %v calls %d", got, err, calls)
	}
}

func TestCollectPagesReturnsErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := collectPages(t.Context(), "listX", 2, func(s string) string { return s },
		func(context.Context, int, int) ([]string, int, error) { return nil, 0, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestCollectPagesReadsAgainWhenRowsAreRemoved(t *testing.T) {
	t.Parallel()
	// Newest first: "x" on page 1 is removed after page 1 was read, so "c"
	// moves up onto page 1 and page 2 starts at "d". The total falls.
	listings := [][]map[int][]string{
		{{1: {"x", "b"}}, {2: {"d"}}},
		{{1: {"b", "c"}}, {2: {"d"}}},
	}
	totals := [][]int{{4, 3}, {3, 3}}
	listing, asked := 0, 0
	got, err := collectPages(t.Context(), "listX", 2, func(s string) string { return s },
		func(_ context.Context, page, _ int) ([]string, int, error) {
			asked++
			if page == 1 && asked > 1 {
				listing++
			}
			return listings[listing][page-1][page], totals[listing][page-1], nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "c", "d"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v: an item pulled onto a page already read is lost", got, want)
	}
	if asked != 4 {
		t.Fatalf("pages asked %d, want 4 (two listings of two pages)", asked)
	}
}

func TestCollectPagesFailsWhenRowsKeepBeingRemoved(t *testing.T) {
	t.Parallel()
	total := 100
	_, err := collectPages(t.Context(), "listX", 2, func(s string) string { return s },
		func(context.Context, int, int) ([]string, int, error) {
			total--
			return []string{fmt.Sprint("r", total, "a"), fmt.Sprint("r", total, "b")}, total, nil
		})
	if err == nil || !strings.Contains(err.Error(), "listX") || !strings.Contains(err.Error(), "removed while the list was read") {
		t.Fatalf("err = %v, want an error naming the command and the cause", err)
	}
}
