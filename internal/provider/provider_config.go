package provider

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cmkconfig"
)

// Environment variables, named as the official CloudStack provider names them.
const (
	envAPIURL    = "CLOUDSTACK_API_URL"
	envAPIKey    = "CLOUDSTACK_API_KEY"
	envSecretKey = "CLOUDSTACK_SECRET_KEY"
	envConfig    = "CLOUDSTACK_CONFIG"
	envProfile   = "CLOUDSTACK_PROFILE"
)

// settings is the provider configuration after precedence was applied.
type settings struct {
	apiURL           string
	apiKey           string
	secretKey        string
	insecure         bool
	caFile           string
	httpGetOnly      bool
	requestTimeout   time.Duration
	etcdSSHStartPort int
	// source says where the credentials came from, for logs; never the values.
	source string
}

// configSources are where the configuration falls back to: the
// environment and the home directory (of the cmk file), injectable so that
// configuration tests do not depend on the machine they run on.
type configSources struct {
	env     func(string) (string, bool)
	homeDir func() (string, error)
}

func osConfigSources() configSources {
	return configSources{env: os.LookupEnv, homeDir: os.UserHomeDir}
}

// resolve applies the precedence attribute, then environment, then cmk file.
func (p configSources) resolve(m providerModel) (settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := settings{
		insecure:         m.Insecure.ValueBool(),
		caFile:           m.CAFile.ValueString(),
		httpGetOnly:      m.HTTPGetOnly.ValueBool(),
		requestTimeout:   defaultRequestTimeoutSeconds * time.Second,
		etcdSSHStartPort: defaultEtcdSSHStartPort,
	}
	if known(m.RequestTimeout) {
		s.requestTimeout = time.Duration(m.RequestTimeout.ValueInt64()) * time.Second
	}
	if known(m.EtcdSSHStartPort) {
		s.etcdSSHStartPort = int(m.EtcdSSHStartPort.ValueInt64())
	}

	var sources []string
	pick := func(attr types.String, env string) string {
		if known(attr) {
			sources = append(sources, "attribute")
			return attr.ValueString()
		}
		if v, ok := p.env(env); ok && v != "" {
			sources = append(sources, "environment")
			return v
		}
		return ""
	}
	s.apiURL = pick(m.APIURL, envAPIURL)
	s.apiKey = pick(m.APIKey, envAPIKey)
	s.secretKey = pick(m.SecretKey, envSecretKey)
	fromFile, fileDiags := p.fillFromProfile(m, &s)
	diags.Append(fileDiags...)
	if diags.HasError() {
		return s, diags
	}
	s.source = strings.Join(dedupe(append(sources, fromFile...)), ", ")
	checkCredentials(s, &diags)
	return s, diags
}

// fillFromProfile fills what attributes and environment left empty from the
// cmk configuration file's profile, when one is needed or named, and
// returns where the values came from.
func (p configSources) fillFromProfile(m providerModel, s *settings) ([]string, diag.Diagnostics) {
	configPath, configExplicit, configAttr := p.configPath(m)
	profileName, profileAttr := p.profileName(m)
	needFile := s.apiURL == "" || s.apiKey == "" || s.secretKey == "" || configExplicit || profileName != ""
	if !needFile || configPath == "" {
		return nil, nil
	}
	profile, diags := loadProfile(configPath, configExplicit, configAttr, profileName, profileAttr)
	if diags.HasError() || profile == nil {
		return nil, diags
	}
	var sources []string
	for _, f := range []struct {
		dst *string
		v   string
	}{{&s.apiURL, profile.URL}, {&s.apiKey, profile.APIKey}, {&s.secretKey, profile.SecretKey}} {
		if *f.dst == "" && f.v != "" {
			*f.dst = f.v
			sources = append(sources, "cmk profile "+profile.Name)
		}
	}
	return sources, diags
}

// checkCredentials reports each setting that is missing or invalid after
// the precedence, against the attribute that would set it.
func checkCredentials(s settings, diags *diag.Diagnostics) {
	missing := func(attr, env, key string) {
		diags.AddAttributeError(path.Root(attr), "Missing CloudStack "+strings.ToUpper(attr[:1])+strings.ReplaceAll(attr[1:], "_", " "),
			fmt.Sprintf("The provider needs %s. Set the %s attribute, the %s environment variable, or %s in a cmk configuration profile.", attr, attr, env, key))
	}
	if s.apiURL == "" {
		missing("api_url", envAPIURL, "url")
	} else if err := validateAPIURL(s.apiURL); err != nil {
		diags.AddAttributeError(path.Root("api_url"), "Invalid CloudStack API URL", err.Error())
	}
	if s.apiKey == "" {
		missing("api_key", envAPIKey, "apikey")
	}
	if s.secretKey == "" {
		missing("secret_key", envSecretKey, "secretkey")
	}
	if s.caFile != "" {
		if _, err := os.Stat(s.caFile); err != nil {
			diags.AddAttributeError(path.Root("ca_file"), "Unreadable CA File", fmt.Sprintf("ca_file %q cannot be read: %s", s.caFile, describeFileError(err)))
		}
	}
}

// configPath returns the cmk file to consult, whether the user named it, and
// whether the name came from the attribute (for the diagnostic path).
func (p configSources) configPath(m providerModel) (string, bool, bool) {
	if known(m.Config) {
		return expandHome(m.Config.ValueString(), p.homeDir), true, true
	}
	if v, ok := p.env(envConfig); ok && v != "" {
		return expandHome(v, p.homeDir), true, false
	}
	home, err := p.homeDir()
	if err != nil || home == "" {
		return "", false, false
	}
	return filepath.Join(home, ".cmk", "config"), false, false
}

func (p configSources) profileName(m providerModel) (string, bool) {
	if known(m.Profile) {
		return m.Profile.ValueString(), true
	}
	if v, ok := p.env(envProfile); ok {
		return v, false
	}
	return "", false
}

func loadProfile(configPath string, explicit, fromAttr bool, profileName string, profileFromAttr bool) (*cmkconfig.Profile, diag.Diagnostics) {
	var diags diag.Diagnostics
	file, err := cmkconfig.Load(configPath)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			// The default ~/.cmk/config is optional.
			if profileName != "" {
				diags.AddAttributeError(profilePath(profileFromAttr), "CloudMonkey Profile Not Found",
					fmt.Sprintf("profile %q was requested but no cmk configuration file exists at %s.", profileName, configPath))
			}
			return nil, diags
		}
		detail := fmt.Sprintf("The cmk configuration file %q cannot be read: %s", configPath, describeFileError(err))
		if fromAttr {
			diags.AddAttributeError(path.Root("config"), "Unreadable CloudMonkey Configuration", detail)
		} else {
			diags.AddError("Unreadable CloudMonkey Configuration", detail+" (the path came from "+envConfig+").")
		}
		return nil, diags
	}
	profile, err := file.Profile(profileName)
	if err != nil {
		diags.AddAttributeError(profilePath(profileFromAttr), "CloudMonkey Profile Not Found",
			fmt.Sprintf("In %s: %s", configPath, err))
		return nil, diags
	}
	return &profile, diags
}

func profilePath(fromAttr bool) path.Path {
	if fromAttr {
		return path.Root("profile")
	}
	// The profile came from CLOUDSTACK_PROFILE or the file's [core] section;
	// the config attribute is where the user can act on it.
	return path.Root("config")
}

func validateAPIURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("api_url %q is not a valid URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("api_url %q must use the http or https scheme, for example https://cloud.example.com/client/api", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("api_url %q has no host", raw)
	}
	if u.User != nil {
		return fmt.Errorf("api_url must not contain user credentials; use api_key and secret_key")
	}
	return nil
}

func describeFileError(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	default:
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			return pathErr.Err.Error()
		}
		return err.Error()
	}
}
