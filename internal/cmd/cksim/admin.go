package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator"
)

// runAdmin sends one admin API request: cksim admin -url URL op key=value...
// The op is the route path with "/" or "-" (map-delete, fault/job, ...).
func runAdmin(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cksim admin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	adminURL := fs.String("url", os.Getenv("CKSIM_ADMIN_URL"), "admin URL printed by cksim (admin_url); default $CKSIM_ADMIN_URL")
	fs.Usage = func() { adminUsage(fs, stderr) }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || fs.Arg(0) == "help" {
		adminUsage(fs, stdout)
		return 0
	}
	if *adminURL == "" {
		fmt.Fprintln(stderr, "cksim admin: -url is required")
		return 2
	}
	route, ok := findRoute(fs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "cksim admin: unknown op %q (try: cksim admin help)\n", fs.Arg(0))
		return 2
	}
	values := map[string]string{}
	for _, kv := range fs.Args()[1:] {
		k, v, found := strings.Cut(kv, "=")
		if !found {
			fmt.Fprintf(stderr, "cksim admin: argument %q is not key=value\n", kv)
			return 2
		}
		values[k] = v
	}
	body, status, err := sendAdmin(*adminURL, route, values)
	if err != nil {
		fmt.Fprintln(stderr, "cksim admin:", err)
		return 1
	}
	_, _ = stdout.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		fmt.Fprintln(stdout)
	}
	if status/100 != 2 {
		return 1
	}
	return 0
}

func findRoute(op string) (simulator.AdminRoute, bool) {
	want := strings.ReplaceAll(strings.Trim(op, "/"), "-", "/")
	for _, r := range simulator.AdminRoutes() {
		if r.Path == want {
			return r, true
		}
	}
	return simulator.AdminRoute{}, false
}

func sendAdmin(adminURL string, route simulator.AdminRoute, values map[string]string) ([]byte, int, error) {
	target := strings.TrimRight(adminURL, "/") + "/" + route.Path
	var req *http.Request
	var err error
	if route.Method == http.MethodGet {
		q := url.Values{}
		for k, v := range values {
			q.Set(k, v)
		}
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		req, err = http.NewRequest(http.MethodGet, target, nil)
	} else {
		payload, merr := json.Marshal(values)
		if merr != nil {
			return nil, 0, merr
		}
		req, err = http.NewRequest(http.MethodPost, target, bytes.NewReader(payload))
		if req != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		return nil, 0, err
	}
	client := &http.Client{Timeout: 60 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return body, resp.StatusCode, err
}

func adminUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, "usage: cksim admin -url <admin_url> <op> [key=value ...]")
	fmt.Fprintln(w, "\nops:")
	for _, r := range simulator.AdminRoutes() {
		fields := ""
		if len(r.Fields) > 0 {
			fields = " " + strings.Join(r.Fields, "= ") + "="
		}
		fmt.Fprintf(w, "  %-16s%s\n      %s %s\n", strings.ReplaceAll(r.Path, "/", "-"), fields, r.Method, r.Help)
	}
	fmt.Fprintln(w, "\njob steps (fault-job op= step=):")
	steps := simulator.JobSteps()
	for _, op := range slices.Sorted(maps.Keys(steps)) {
		fmt.Fprintf(w, "  %-18s %s\n", op, strings.Join(steps[op], ", "))
	}
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}
