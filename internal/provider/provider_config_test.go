package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// testProvider builds a provider whose environment and home directory are
// the given map and directory, independent of the machine.
func testProvider(env map[string]string, home string) *cksProvider {
	p := newProvider("test")
	p.env = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	p.homeDir = func() (string, error) { return home, nil }
	return p
}

func writeCmk(t *testing.T, dir string) string {
	t.Helper()
	file := filepath.Join(dir, ".cmk", "config")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(cmkBody), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

const cmkBody = `[core]
profile = lab
[lab]
url = https://file.example.test/client/api
apikey = file-key
secretkey = file-secret
[other]
url = https://other.example.test/client/api
apikey = other-key
secretkey = other-secret
`

func nullModel() providerModel {
	return providerModel{
		APIURL: types.StringNull(), APIKey: types.StringNull(), SecretKey: types.StringNull(),
		Config: types.StringNull(), Profile: types.StringNull(), Insecure: types.BoolNull(),
		CAFile: types.StringNull(), HTTPGetOnly: types.BoolNull(), RequestTimeout: types.Int64Null(),
		EtcdSSHStartPort: types.Int64Null(),
	}
}

func errorPaths(diags diag.Diagnostics) []string {
	var out []string
	for _, d := range diags.Errors() {
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			out = append(out, withPath.Path().String())
		} else {
			out = append(out, "<no path>")
		}
	}
	return out
}

func TestPrecedenceAttributeThenEnvThenFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeCmk(t, home)
	env := map[string]string{envAPIKey: "env-key"}
	m := nullModel()
	m.APIURL = types.StringValue("https://attr.example.test/client/api")

	s, diags := testProvider(env, home).resolve(m)
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	if s.apiURL != "https://attr.example.test/client/api" {
		t.Errorf("api_url from %q, want the attribute", s.apiURL)
	}
	if s.apiKey != "env-key" {
		t.Errorf("api_key = %q, want the environment value", s.apiKey)
	}
	if s.secretKey != "file-secret" {
		t.Errorf("secret_key = %q, want the cmk default profile's value", s.secretKey)
	}
	if s.etcdSSHStartPort != 50000 || s.requestTimeout != 60*time.Second {
		t.Errorf("defaults not applied: %+v", s)
	}
	for _, want := range []string{"attribute", "environment", "cmk profile lab"} {
		if !strings.Contains(s.source, want) {
			t.Errorf("source %q does not mention %q", s.source, want)
		}
	}
	if strings.Contains(s.source, "secret") {
		t.Errorf("source must never carry values: %q", s.source)
	}
}

func TestNamedProfileFromEnvironment(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeCmk(t, home)
	s, diags := testProvider(map[string]string{envProfile: "other"}, home).resolve(nullModel())
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	if s.apiURL != "https://other.example.test/client/api" || s.apiKey != "other-key" || s.secretKey != "other-secret" {
		t.Fatalf("profile other not used: %+v", s)
	}
}

func TestExplicitConfigAndProfileAttributes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writeCmk(t, dir)
	m := nullModel()
	m.Config = types.StringValue(file)
	m.Profile = types.StringValue("other")
	// The environment loses to the explicit profile only for values the
	// environment does not set; env still beats the file.
	s, diags := testProvider(map[string]string{envSecretKey: "env-secret"}, t.TempDir()).resolve(m)
	if diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	if s.apiKey != "other-key" || s.secretKey != "env-secret" {
		t.Fatalf("got %+v", s)
	}
}

func TestConfigErrorsCarryAttributePaths(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeCmk(t, home)
	cases := []struct {
		name  string
		model func() providerModel
		home  string
		paths []string
		text  string
	}{
		{
			name:  "nothing configured anywhere",
			model: nullModel,
			home:  t.TempDir(),
			paths: []string{"api_url", "api_key", "secret_key"},
			text:  "CLOUDSTACK_API_URL",
		},
		{
			name: "malformed url",
			model: func() providerModel {
				m := nullModel()
				m.APIURL = types.StringValue("ftp://cloud.example.test")
				m.APIKey = types.StringValue("k")
				m.SecretKey = types.StringValue("s")
				return m
			},
			home:  t.TempDir(),
			paths: []string{"api_url"},
			text:  "http or https",
		},
		{
			name: "unreadable config file",
			model: func() providerModel {
				m := nullModel()
				m.Config = types.StringValue(filepath.Join(home, "nope"))
				return m
			},
			home:  home,
			paths: []string{"config"},
			text:  "no such file",
		},
		{
			name: "unknown profile",
			model: func() providerModel {
				m := nullModel()
				m.Profile = types.StringValue("staging")
				return m
			},
			home:  home,
			paths: []string{"profile"},
			text:  "available profiles: lab, other",
		},
		{
			name: "unreadable ca file",
			model: func() providerModel {
				m := nullModel()
				m.CAFile = types.StringValue(filepath.Join(home, "missing.pem"))
				return m
			},
			home:  home,
			paths: []string{"ca_file"},
			text:  "cannot be read",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, diags := testProvider(map[string]string{}, tc.home).resolve(tc.model())
			got := errorPaths(diags)
			if strings.Join(got, ",") != strings.Join(tc.paths, ",") {
				t.Fatalf("error paths = %v, want %v (diags %v)", got, tc.paths, diags)
			}
			if !strings.Contains(diagText(diags), tc.text) {
				t.Fatalf("diagnostics %q do not mention %q", diagText(diags), tc.text)
			}
		})
	}
}

func TestHomeRelativeConfigPath(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeCmk(t, home)
	m := nullModel()
	m.Config = types.StringValue("~/.cmk/config")
	s, diags := testProvider(map[string]string{}, home).resolve(m)
	if diags.HasError() || s.apiKey != "file-key" {
		t.Fatalf("~ not expanded: %+v %v", s, diags)
	}
}

func TestDefaultConfigFileIsOptional(t *testing.T) {
	t.Parallel()
	m := nullModel()
	m.APIURL = types.StringValue("http://127.0.0.1:8080/client/api")
	m.APIKey = types.StringValue("k")
	m.SecretKey = types.StringValue("s")
	_, diags := testProvider(map[string]string{}, t.TempDir()).resolve(m)
	if diags.HasError() {
		t.Fatalf("a missing ~/.cmk/config must not matter when all values are given: %v", diags)
	}
}

func diagText(diags diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary() + ": " + d.Detail() + "\n")
	}
	return b.String()
}
