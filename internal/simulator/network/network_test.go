package network

import "testing"

func TestGuestCIDRLayout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		num, bits int
		want      string
	}{
		{1, 24, "10.1.1.0/24"},
		{249, 24, "10.1.249.0/24"},
		{256, 24, "10.2.0.0/24"},
		{1, 20, "10.1.16.0/20"},
		{0, 16, "10.1.0.0/16"},
		{255, 16, "10.1.0.0/16"}, // wraps inside 10.1.0.0-10.255.255.255
		{2, 29, "10.1.0.16/29"},
	}
	for _, c := range cases {
		if got := guestCIDR(c.num, c.bits).String(); got != c.want {
			t.Errorf("guestCIDR(%d, %d) = %s, want %s", c.num, c.bits, got, c.want)
		}
	}
}
