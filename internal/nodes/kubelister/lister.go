// Package kubelister lists Kubernetes nodes through the Kubernetes API, using
// a kubeconfig such as the one CKS returns from getKubernetesClusterConfig.
package kubelister

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/nodes"
)

// DefaultTimeout bounds each API request when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// pageSize keeps each NodeList response small on large clusters.
const pageSize = 500

// Options tune the lister.
type Options struct {
	// Timeout bounds each HTTP request; 0 means DefaultTimeout.
	Timeout time.Duration
}

// Lister lists nodes with GET /api/v1/nodes. It is safe for concurrent use.
type Lister struct {
	client  *rest.RESTClient
	server  string
	timeout time.Duration
}

var _ nodes.Lister = (*Lister)(nil)

// New builds a lister from kubeconfig bytes (its current context). Errors
// never contain the kubeconfig's credentials.
func New(kubeconfig []byte, opts Options) (*Lister, error) {
	if len(kubeconfig) == 0 {
		return nil, errors.New("kubelister: kubeconfig is empty")
	}
	if opts.Timeout < 0 {
		return nil, errors.New("kubelister: Timeout must not be negative")
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubelister: kubeconfig is not usable: %s", redact(err.Error(), kubeconfig))
	}
	cfg.Timeout = opts.Timeout
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.UserAgent = "terraform-provider-cks"
	// Deprecation warnings would go to the provider's stderr through klog.
	cfg.WarningHandlerWithContext = rest.NoWarnings{}
	cfg.APIPath = "/api"
	cfg.GroupVersion = &corev1.SchemeGroupVersion
	codecs, err := coreV1Codecs()
	if err != nil {
		return nil, err
	}
	cfg.NegotiatedSerializer = codecs

	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubelister: building the API client: %s", redact(err.Error(), kubeconfig))
	}
	return &Lister{client: client, server: redactedServer(cfg.Host), timeout: cfg.Timeout}, nil
}

// coreV1Codecs decodes only core/v1 (plus meta/v1 Status for errors), which is
// all the lister needs and much lighter than client-go's full scheme.
func coreV1Codecs() (runtime.NegotiatedSerializer, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("kubelister: registering core/v1 types: %w", err)
	}
	return serializer.NewCodecFactory(scheme).WithoutConversion(), nil
}

// redactedServer drops any user:password from the server URL before it goes into errors.
func redactedServer(host string) string {
	u, err := url.Parse(host)
	if err != nil || u.User == nil {
		return host
	}
	return u.Redacted()
}

// Server is the API server URL from the kubeconfig, without credentials.
func (l *Lister) Server() string { return l.server }

// ListNodes returns every node, following pagination.
func (l *Lister) ListNodes(ctx context.Context) ([]nodes.Node, error) {
	var (
		result []nodes.Node
		token  string
		seen   = make(map[string]bool)
	)
	for {
		var list corev1.NodeList
		req := l.client.Get().Resource("nodes").Param("limit", strconv.Itoa(pageSize))
		if token != "" {
			req = req.Param("continue", token)
		}
		if err := req.Do(ctx).Into(&list); err != nil {
			return nil, l.requestError(ctx, err)
		}
		for i := range list.Items {
			result = append(result, nodes.FromAPI(&list.Items[i]))
		}
		token = list.Continue
		if token == "" {
			return result, nil
		}
		if seen[token] {
			return nil, fmt.Errorf("kubernetes API %s: listing nodes: the server repeated a continue token", l.server)
		}
		seen[token] = true
	}
}

func (l *Lister) requestError(ctx context.Context, err error) error {
	var status apierrors.APIStatus
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("kubernetes API %s: listing nodes: no answer within %s: %w", l.server, l.timeout, err)
	}
	if errors.As(err, &status) {
		s := status.Status()
		code := int(s.Code)
		msg := fmt.Sprintf("kubernetes API %s: listing nodes: HTTP %d %s", l.server, code, http.StatusText(code))
		switch code {
		case http.StatusUnauthorized:
			msg += " (the kubeconfig's credentials were rejected)"
		case http.StatusForbidden:
			msg += " (the kubeconfig's user may not list nodes)"
		}
		if s.Message != "" {
			msg += ": " + s.Message
		}
		return &statusError{msg: msg, err: err}
	}
	return fmt.Errorf("kubernetes API %s: listing nodes: %w", l.server, err)
}

// statusError rewords an API status for people while keeping the original
// for apierrors.IsUnauthorized and friends.
type statusError struct {
	msg string
	err error
}

func (e *statusError) Error() string { return e.msg }
func (e *statusError) Unwrap() error { return e.err }
