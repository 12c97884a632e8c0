package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where the benchmarks ran.
type Machine struct {
	CPUs      int
	CPUModel  string
	MemTotal  uint64 // bytes; 0 when unknown
	GoVersion string
	OS        string
	Kernel    string
	// LoadAvg is /proc/loadavg's 1, 5 and 15 minute load when described:
	// other work on the machine skews the figures.
	LoadAvg string
}

// DescribeMachine reads the CPU count, /proc/cpuinfo, /proc/meminfo and
// the kernel release; what cannot be read is left empty.
func DescribeMachine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		m.MemTotal = parseMeminfoKB(v)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.LoadAvg = loadAverage()
	return m
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute load, "" when unknown.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

// Rows lists the description as label/value pairs.
func (m Machine) Rows() [][2]string {
	mem := "unknown"
	if m.MemTotal > 0 {
		mem = fmt.Sprintf("%.1f GiB", float64(m.MemTotal)/(1<<30))
	}
	return [][2]string{
		{"CPUs (nproc)", strconv.Itoa(m.CPUs)},
		{"CPU model", orUnknown(m.CPUModel)},
		{"Memory", mem},
		{"Go", m.GoVersion},
		{"OS", strings.TrimSpace(m.OS + " " + m.Kernel)},
		{"Load average at start (1, 5, 15 min)", orUnknown(m.LoadAvg)},
	}
}

// procField returns the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// parseMeminfoKB parses "16314664 kB" into bytes; 0 when malformed.
func parseMeminfoKB(v string) uint64 {
	fields := strings.Fields(v)
	if len(fields) == 0 {
		return 0
	}
	n, err := strconv.ParseUint(fields[0], 10, 64)
	if err != nil {
		return 0
	}
	if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
		n *= 1024
	}
	return n
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
