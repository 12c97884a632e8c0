package cloudstack

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults applied by New to zero Config values.
const (
	DefaultRequestTimeout   = 60 * time.Second
	DefaultRetryMaxAttempts = 4
	DefaultRetryBaseDelay   = 250 * time.Millisecond
	DefaultRetryMaxDelay    = 5 * time.Second
	// DefaultPageSize is CloudStack's default.page.size; larger pages are refused.
	DefaultPageSize = 500
)

// Config configures a Client.
type Config struct {
	// APIURL is the API endpoint, e.g. https://cloud.example.com/client/api.
	APIURL    string
	APIKey    string
	SecretKey string
	// Insecure disables TLS certificate verification.
	Insecure bool
	// CAFile is a PEM file of CA certificates trusted in addition to the system pool.
	CAFile string
	// HTTPGetOnly sends every command as GET, also the state-changing ones.
	HTTPGetOnly bool
	// RequestTimeout bounds one HTTP request (not an async job). Zero means 60 s.
	RequestTimeout time.Duration
	// Retry controls retries of read calls on transient errors.
	Retry RetryPolicy
}

// RetryPolicy controls retries of idempotent reads (list, get, query) on
// transient errors. Mutating calls are never retried.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 1 disables retries. Zero means 4.
	MaxAttempts int
	// BaseDelay is the wait before the second attempt; it doubles after that.
	// Zero means 250 ms.
	BaseDelay time.Duration
	// MaxDelay caps the wait between attempts. Zero means 5 s.
	MaxDelay time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetryMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetryBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetryMaxDelay
	}
	if p.MaxDelay < p.BaseDelay {
		p.MaxDelay = p.BaseDelay
	}
	return p
}

// New validates cfg and returns a Client. It does not contact CloudStack.
func New(cfg Config) (*Client, error) {
	if err := validateConfig(cfg); err != nil {
		return nil, err
	}
	tlsConfig, err := buildTLSConfig(cfg.Insecure, cfg.CAFile)
	if err != nil {
		return nil, err
	}
	timeout := cfg.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, fmt.Errorf("creating cookie jar: %w", err)
	}
	return &Client{
		apiURL:         cfg.APIURL,
		apiKey:         cfg.APIKey,
		secretKey:      cfg.SecretKey,
		httpGetOnly:    cfg.HTTPGetOnly,
		requestTimeout: timeout,
		retry:          cfg.Retry.withDefaults(),
		pageSize:       DefaultPageSize,
		transport:      newTransport(tlsConfig),
		jar:            jar,
	}, nil
}

func validateConfig(cfg Config) error {
	var problems []string
	if strings.TrimSpace(cfg.APIURL) == "" {
		problems = append(problems, "the API URL is empty")
	} else if u, err := url.Parse(cfg.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		problems = append(problems, fmt.Sprintf("the API URL %q is not an absolute http(s) URL", redactURL(cfg.APIURL)))
	}
	if cfg.APIKey == "" {
		problems = append(problems, "the API key is empty")
	}
	if cfg.SecretKey == "" {
		problems = append(problems, "the secret key is empty")
	}
	if cfg.RequestTimeout < 0 {
		problems = append(problems, "the request timeout is negative")
	}
	if len(problems) > 0 {
		return errors.New("invalid CloudStack client configuration: " + strings.Join(problems, "; "))
	}
	return nil
}

// buildTLSConfig verifies certificates unless insecure; caFile adds CAs to
// the system pool.
func buildTLSConfig(insecure bool, caFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if insecure {
		cfg.InsecureSkipVerify = true // the user asked for it explicitly
	}
	if caFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading CA file %s: %w", caFile, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s contains no valid PEM certificate", caFile)
	}
	cfg.RootCAs = pool
	return cfg, nil
}

func newTransport(tlsConfig *tls.Config) *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   30 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
