package bench

import "testing"

func TestGuestCIDRPrefixFor(t *testing.T) {
	t.Parallel()
	cases := []struct{ vms, want int }{
		{0, 24}, {253, 24}, {254, 23}, {5000, 19}, {8189, 19}, {8190, 18}, {65533, 16},
	}
	for _, c := range cases {
		got, err := guestCIDRPrefixFor(c.vms)
		if err != nil || got != c.want {
			t.Errorf("guestCIDRPrefixFor(%d) = %d, %v; want %d", c.vms, got, err, c.want)
		}
	}
	if _, err := guestCIDRPrefixFor(65534); err == nil {
		t.Error("65534 VMs fit in one network")
	}
}
