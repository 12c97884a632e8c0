package provider

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// What users copy from the README and the guides runs as written: every
// HCL block of README.md and of docs/guides (the guides as tfplugindocs
// renders them from templates/guides, examples included) is applied,
// verbatim, against the simulator by the test that docRunners names for
// its document. A block is a configuration of its own (it has a terraform
// block), or says in a comment which file it continues ("# ssh.tf:
// continues main.tf above"), or is the CLI configuration, which
// internal/installtest installs from.

// docRunners names, for each document with HCL blocks, the test that runs
// all of them.
var docRunners = map[string]string{
	"README.md":                                             "TestReadmeQuickStart",
	"docs/guides/adopting-clusters.md":                      "TestGuideAdoptingClusters",
	"docs/guides/drift-ci-gates.md":                         "TestGuideDriftGateExamples",
	"docs/guides/etcd-scaling.md":                           "TestGuideEtcdScalingExample",
	"docs/guides/external-nodes.md":                         "TestGuideExternalNodesExample",
	"docs/guides/migrating-from-the-cloudstack-provider.md": "TestGuideMigrationExamples",
	"docs/guides/simulator.md":                              "TestGuideSimulatorExample",
}

// docBlock is one HCL block of a document.
type docBlock struct {
	doc  string
	line int
	text string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.doc, b.line) }

// selfContained tells whether the block is a configuration of its own.
func (b docBlock) selfContained() bool {
	return regexp.MustCompile(`(?m)^terraform \{`).MatchString(b.text) && strings.Contains(b.text, "required_providers")
}

// continues tells whether a comment of the block says which file it
// continues.
func (b docBlock) continues() bool {
	return regexp.MustCompile(`(?m)^# \S+: continues \S+`).MatchString(b.text)
}

// cliConfiguration tells whether the block is the CLI configuration file,
// which names itself in its first line.
func (b docBlock) cliConfiguration() bool {
	return strings.HasPrefix(b.text, "# ~/.terraformrc") && strings.Contains(b.text, "provider_installation {")
}

var hclFence = regexp.MustCompile("(?ms)^```(?:hcl|terraform)\n(.*?)^```")

// docBlocks are the HCL blocks of a document, relative to the repository,
// in order.
func docBlocks(t *testing.T, doc string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repositoryRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	for _, m := range hclFence.FindAllStringSubmatchIndex(string(data), -1) {
		out = append(out, docBlock{doc: doc, line: strings.Count(string(data[:m[0]]), "\n") + 1, text: string(data[m[2]:m[3]])})
	}
	return out
}

// documents are the README and the rendered guides.
func documents(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(repositoryRoot(t), "docs", "guides", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, g := range guides {
		out = append(out, filepath.ToSlash(filepath.Join("docs", "guides", filepath.Base(g))))
	}
	return out
}

// TestDocBlocksAreRunVerbatim checks that every HCL block of the README and
// the guides can run as written, and that a test runs each document's.
func TestDocBlocksAreRunVerbatim(t *testing.T) {
	t.Parallel()
	for _, doc := range documents(t) {
		blocks := docBlocks(t, doc)
		if _, ok := docRunners[doc]; len(blocks) > 0 && !ok {
			t.Errorf("%s has %d HCL blocks and no test runs them: add it to docRunners", doc, len(blocks))
		}
		for _, b := range blocks {
			if !b.selfContained() && !b.continues() && !b.cliConfiguration() {
				t.Errorf("%s: the block has no terraform block, and no comment (\"# x.tf: continues main.tf\") says "+
					"which file it continues, so it does not run as written:\n%s", b, b.text)
			}
		}
	}
	for doc := range docRunners {
		if len(docBlocks(t, doc)) == 0 {
			t.Errorf("docRunners names %s, which has no HCL block", doc)
		}
	}
}

// docRun hands a document's blocks to the test that runs them and checks
// at the end that it ran every one.
type docRun struct {
	t      *testing.T
	doc    string
	blocks []docBlock
	ran    map[int]string
}

func newDocRun(t *testing.T, doc string) *docRun {
	t.Helper()
	run := &docRun{t: t, doc: doc, blocks: docBlocks(t, doc), ran: map[int]string{}}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		for i, b := range run.blocks {
			if _, ok := run.ran[i]; !ok {
				t.Errorf("%s: %s does not run this block:\n%s", b, t.Name(), b.text)
			}
		}
	})
	return run
}

// find is the index of the one block that contains marker.
func (run *docRun) find(marker string) int {
	run.t.Helper()
	var found []int
	for i, b := range run.blocks {
		if strings.Contains(b.text, marker) {
			found = append(found, i)
		}
	}
	if len(found) != 1 {
		run.t.Fatalf("%s has %d HCL blocks with %q; the test knows one", run.doc, len(found), marker)
	}
	return found[0]
}

// block is the one block that contains marker, verbatim; the test runs it.
func (run *docRun) block(marker string) string {
	run.t.Helper()
	i := run.find(marker)
	run.ran[i] = run.t.Name()
	return run.blocks[i].text
}

// elsewhere records that another test runs the block that contains marker.
func (run *docRun) elsewhere(marker, test string) {
	run.t.Helper()
	run.ran[run.find(marker)] = test
}

// emptyPlan checks that a plan of dir changes nothing. A check block's data
// source is always read again during apply, "to verify a check block":
// that read is the only action such a plan may have.
func (r *exampleRunner) emptyPlan(dir string, extraEnv []string) {
	r.t.Helper()
	out, err := r.run(dir, extraEnv, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	if err == nil {
		return
	}
	reads := regexp.MustCompile(`(?m)^  # (\S+) will be read during apply\n  # \(config will be reloaded to verify a check block\)$`)
	actions := regexp.MustCompile(`(?m)^  # [a-z]\S* `) // an address: "(config ..." is not one
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 2 || !strings.Contains(out, "Plan: 0 to add, 0 to change, 0 to destroy.") ||
		len(reads.FindAllString(out, -1)) != len(actions.FindAllString(out, -1)) {
		r.t.Fatalf("terraform plan in %s should change nothing: %v\n%s", dir, err, out)
	}
}

// writeFile writes a file of a working directory.
func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pathPrefixEnv, in the environment given to shellRun, names a directory
// to put first on PATH (the policy engines, as if installed).
const pathPrefixEnv = "CKS_TEST_PATH_PREFIX"

// shellLines runs the lines of a sh block of a document in dir with bash,
// as a user pastes them, and fails the test when they fail.
func (r *exampleRunner) shellLines(dir string, extraEnv []string, lines string) string {
	r.t.Helper()
	out, err := r.shellRun(dir, extraEnv, lines)
	if err != nil {
		r.t.Fatalf("running in %s:\n%s\n%v\n%s", dir, lines, err, out)
	}
	return out
}

// shellRun runs lines with bash in dir, with the CLI under test as
// `terraform` on PATH and Go's caches of the test's own environment (the
// CLI's HOME is a temporary one).
func (r *exampleRunner) shellRun(dir string, extraEnv []string, lines string) (string, error) {
	r.t.Helper()
	bin := r.t.TempDir()
	cli, err := exec.LookPath(terraformPath())
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(cli, filepath.Join(bin, "terraform")); err != nil {
		r.t.Fatal(err)
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	env := slices.DeleteFunc(append([]string{}, r.env...), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	for _, kv := range extraEnv {
		if prefix, ok := strings.CutPrefix(kv, pathPrefixEnv+"="); ok {
			path = prefix + string(os.PathListSeparator) + path
			continue
		}
		env = append(env, kv)
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			r.t.Fatal(err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", lines)
	cmd.Dir = dir
	cmd.Env = append(env, "PATH="+path)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// shBlock is the one sh block of a document that contains marker.
func shBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	return fencedBlock(t, doc, "sh", marker)
}

// fencedBlock is the one block of a document fenced as lang that contains
// marker, verbatim.
func fencedBlock(t *testing.T, doc, lang, marker string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repositoryRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, m := range regexp.MustCompile("(?ms)^```"+regexp.QuoteMeta(lang)+"\n(.*?)^```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], marker) {
			found = append(found, m[1])
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s has %d %s blocks with %q; the test knows one", doc, len(found), lang, marker)
	}
	return found[0]
}
