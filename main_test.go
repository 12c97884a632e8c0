package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	for _, tc := range []struct{ version, commit, want string }{
		{"dev", "", "terraform-provider-cks dev"},
		{"0.1.0", "799d30a", "terraform-provider-cks 0.1.0 (commit 799d30a)"},
	} {
		if got := versionLine("terraform-provider-cks", tc.version, tc.commit); got != tc.want {
			t.Errorf("versionLine(%q, %q) = %q, want %q", tc.version, tc.commit, got, tc.want)
		}
	}
}

// keepAChangelog are the headings Keep a Changelog 1.1.0 allows: the title,
// an Unreleased section first, released versions with their dates, and the
// six kinds of change.
var (
	releaseHeading = regexp.MustCompile(`^## \[(Unreleased|\d+\.\d+\.\d+)\]( - \d{4}-\d{2}-\d{2})?$`)
	changeKinds    = []string{"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
)

// TestChangelogFollowsKeepAChangelog checks the structure of CHANGELOG.md:
// an Unreleased section first, each later section a version with a date,
// only the six kinds of change as subsections, each with entries, and a link
// for every section.
func TestChangelogFollowsKeepAChangelog(t *testing.T) {
	data, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if lines[0] != "# Changelog" {
		t.Fatalf("the first line is %q, want %q", lines[0], "# Changelog")
	}
	var sections []string
	entries := map[string]int{} // "section/kind" -> entries
	current := ""
	for i, line := range lines {
		switch {
		case strings.HasPrefix(line, "## "):
			m := releaseHeading.FindStringSubmatch(line)
			if m == nil || (m[1] == "Unreleased") != (m[2] == "") {
				t.Errorf("line %d: %q is neither ## [Unreleased] nor ## [x.y.z] - YYYY-MM-DD", i+1, line)
				continue
			}
			sections = append(sections, m[1])
			current = m[1]
		case strings.HasPrefix(line, "### "):
			kind := strings.TrimPrefix(line, "### ")
			if !slices.Contains(changeKinds, kind) || current == "" {
				t.Errorf("line %d: %q is not one of %v under a version", i+1, line, changeKinds)
			}
			current = sectionOf(current) + "/" + kind
			entries[current] += 0
		case strings.HasPrefix(line, "- ") && strings.Contains(current, "/"):
			entries[current]++
		}
	}
	if len(sections) == 0 || sections[0] != "Unreleased" {
		t.Fatalf("the first section is not ## [Unreleased]: %v", sections)
	}
	for kind, n := range entries {
		if n == 0 {
			t.Errorf("%s has no entry", kind)
		}
	}
	for _, s := range sections {
		if !strings.Contains(string(data), "\n["+s+"]: ") {
			t.Errorf("no link definition [%s]: ... for the section", s)
		}
	}
}

func sectionOf(current string) string {
	section, _, _ := strings.Cut(current, "/")
	return section
}
