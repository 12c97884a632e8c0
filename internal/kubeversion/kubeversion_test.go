package kubeversion

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cases := map[string]Version{
		"1.33.13":  {1, 33, 13},
		"v1.34.2":  {1, 34, 2},
		" 1.30 ":   {1, 30, 0},
		"2.0.0":    {2, 0, 0},
		"1.33.013": {1, 33, 13},
	}
	for in, want := range cases {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1", "1.a.3", "1.2.3.4", "1.33.1-rc.1", "-1.2.3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted a bad version", bad)
		}
	}
}

func TestCheckUpgrade(t *testing.T) {
	t.Parallel()
	v := func(s string) Version {
		out, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	allowed := [][2]string{{"1.33.13", "1.33.14"}, {"1.33.13", "1.34.2"}, {"1.33.13", "1.34.0"}}
	for _, c := range allowed {
		if err := CheckUpgrade(v(c[0]), v(c[1])); err != nil {
			t.Errorf("%s -> %s refused: %v", c[0], c[1], err)
		}
	}
	refused := map[[2]string]string{
		{"1.33.13", "1.33.13"}: "can not be upgraded, current version: 1.33.13",
		{"1.34.2", "1.33.13"}:  "can not be downgraded",
		{"1.34.2", "1.34.1"}:   "can not be downgraded",
		{"1.33.13", "1.35.0"}:  "next minor or patch",
		{"1.33.13", "2.0.0"}:   "next minor or patch",
		{"1.33.13", "2.33.13"}: "next minor or patch",
	}
	for c, want := range refused {
		err := CheckUpgrade(v(c[0]), v(c[1]))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s -> %s: err = %v, want %q", c[0], c[1], err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.33.13", "v1.34", "1..2", "9999999999999999999.1.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(v.String())
		if err != nil || again != v {
			t.Fatalf("round trip of %q: %v, %v", s, again, err)
		}
	})
}

func TestPrefixMatchesWholeComponents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prefix, version string
		want            bool
	}{
		{"1.33", "1.33.0", true},
		{"1.33", "1.33.13", true},
		{"v1.33", "1.33.13", true},
		{"1", "1.34.2", true},
		{"1.33", "1.330.0", false},
		{"1.33", "1.3.3", false},
		{"1.3", "1.33.1", false},
		{"1.33.1", "1.33.13", false},
		{"1.33.13", "1.33.13", true},
		{"2", "1.33.13", false},
	}
	for _, c := range cases {
		p, err := ParsePrefix(c.prefix)
		if err != nil {
			t.Fatalf("ParsePrefix(%q): %v", c.prefix, err)
		}
		v, err := Parse(c.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Matches(v); got != c.want {
			t.Errorf("%q matches %q = %v, want %v", c.prefix, c.version, got, c.want)
		}
	}
	for _, bad := range []string{"", "v", "1.", "1.x", "1.2.3.4", "-1", "1.33-rc"} {
		if _, err := ParsePrefix(bad); err == nil {
			t.Errorf("ParsePrefix(%q) accepted a bad prefix", bad)
		}
	}
	if p, _ := ParsePrefix(" v1.33 "); p.String() != "1.33" {
		t.Errorf("String() = %q", p.String())
	}
}

// A version's name carries its semantic version when it is one, or
// CloudStack's default name of a zone's version.
func TestFromName(t *testing.T) {
	for name, want := range map[string]string{
		"v1.33.13":            "1.33.13",
		"1.33":                "1.33.0",
		"v1.34.2-sim-zone-1":  "1.34.2",
		"v1.34.2-":            "1.34.2",
		"1.34.2-zone":         "",
		"v1.34-zone":          "",
		"calico-1.34.2":       "",
		"v1.34.x-zone":        "",
		"Kubernetes 1.34 LTS": "",
	} {
		if got := FromName(name); got != want {
			t.Errorf("FromName(%q) = %q, want %q", name, got, want)
		}
	}
}
