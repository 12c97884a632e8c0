package cloudstack

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestCollectPagesSkipsRowsThatShifted(t *testing.T) {
	t.Parallel()
	// Page 2 repeats "b" because a row before it was removed while paging.
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
