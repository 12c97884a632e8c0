package cmkconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `# cmk config
[core]
profile = lab
asyncblock = true

[lab]
url = https://cloud.example.test/client/api
apikey = lab-key
secretkey = lab-secret
timeout = 1800

; a second cloud
[prod]
url=https://prod.example.test/client/api
apikey=prod-key
secretkey = prod=secret==
`

func TestParseDefaultAndNamedProfiles(t *testing.T) {
	t.Parallel()
	f, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if f.DefaultProfile != "lab" {
		t.Fatalf("default profile = %q, want lab", f.DefaultProfile)
	}
	def, err := f.Profile("")
	if err != nil {
		t.Fatal(err)
	}
	if def.Name != "lab" || def.URL != "https://cloud.example.test/client/api" || def.APIKey != "lab-key" || def.SecretKey != "lab-secret" {
		t.Fatalf("default profile = %+v", def)
	}
	prod, err := f.Profile("prod")
	if err != nil {
		t.Fatal(err)
	}
	// Only the first '=' separates key and value: base64 secrets end in '='.
	if prod.SecretKey != "prod=secret==" || prod.APIKey != "prod-key" {
		t.Fatalf("prod profile = %+v", prod)
	}
	if got := strings.Join(f.Profiles(), ","); got != "lab,prod" {
		t.Fatalf("profiles = %q", got)
	}
}

func TestMissingProfileListsAvailable(t *testing.T) {
	t.Parallel()
	f, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Profile("staging")
	if err == nil {
		t.Fatal("expected an error for an unknown profile")
	}
	if !strings.Contains(err.Error(), `"staging" not found`) || !strings.Contains(err.Error(), "lab, prod") {
		t.Fatalf("unhelpful error: %v", err)
	}
	if _, err := f.Profile("core"); err == nil {
		t.Fatal("[core] must not be usable as a profile")
	}
}

func TestNoDefaultProfile(t *testing.T) {
	t.Parallel()
	f, err := Parse(strings.NewReader("[a]\nurl = x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Profile(""); err == nil || !strings.Contains(err.Error(), "available profiles: a") {
		t.Fatalf("err = %v", err)
	}
}

func TestMalformedInputNeverEchoesSecrets(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"no section":   "secretkey = hunter2\n",
		"bad header":   "[lab\nsecretkey = hunter2\n",
		"no separator": "[lab]\nhunter2\n",
	}
	for name, input := range cases {
		_, err := Parse(strings.NewReader(input))
		if err == nil {
			t.Fatalf("%s: expected an error", name)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("%s: error leaks the secret: %v", name, err)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load(filepath.Join(t.TempDir(), "absent"))
	if !os.IsNotExist(err) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("[core]\nprofile=x\n[x]\nurl=u\n")
	f.Add("[]\n=\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, input string) {
		file, err := Parse(strings.NewReader(input))
		if err != nil {
			return
		}
		for _, name := range file.Profiles() {
			if _, err := file.Profile(name); err != nil {
				t.Fatalf("listed profile %q cannot be read: %v", name, err)
			}
		}
	})
}
