package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestProcFieldAndMeminfo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cpuinfo")
	content := "processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu\nprocessor\t: 1\nmodel name\t: other\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := procField(path, "model name"); got != "AMD EPYC 7B13" {
		t.Errorf("model name = %q, want the first one", got)
	}
	if got := procField(path, "absent"); got != "" {
		t.Errorf("absent field = %q", got)
	}
	if got := procField(filepath.Join(t.TempDir(), "missing"), "x"); got != "" {
		t.Errorf("missing file = %q", got)
	}
	for in, want := range map[string]uint64{"16314664 kB": 16314664 * 1024, "42": 42, "": 0, "x kB": 0} {
		if got := parseMeminfoKB(in); got != want {
			t.Errorf("parseMeminfoKB(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestDescribeMachine(t *testing.T) {
	t.Parallel()
	m := DescribeMachine()
	if m.CPUs != runtime.NumCPU() || m.GoVersion != runtime.Version() {
		t.Errorf("machine = %+v", m)
	}
	rows := m.Rows()
	if len(rows) != 6 || rows[0][0] != "CPUs (nproc)" {
		t.Errorf("rows = %v", rows)
	}
	for _, r := range rows {
		if r[1] == "" {
			t.Errorf("row %q is empty", r[0])
		}
	}
}
