package catalogops

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/cloudstack"
)

// RegisterResult is what RegisterCNI did.
type RegisterResult struct {
	Config cloudstack.CNIConfiguration
	// Adopted: the register's answer was lost, and the one new
	// configuration of that name and content is taken as its result.
	Adopted bool
	LostErr error
}

// RegisterCNI registers a CNI configuration, never twice: a name the owner
// already uses is refused before the call (with the existing one's id, to
// import), and a register whose answer was lost is taken to be the one new
// configuration of its name with the same content.
func (e *Engine) RegisterCNI(ctx context.Context, p cloudstack.RegisterCNIParams) (RegisterResult, error) {
	before, err := e.sameNameCNI(ctx, p)
	if err != nil {
		return RegisterResult{}, err
	}
	if len(before) > 0 {
		return RegisterResult{}, &NameTakenError{Name: p.Name, Existing: before[0]}
	}
	e.logf(ctx, "registering CNI configuration", map[string]any{"name": p.Name, "config_bytes": len(p.Config),
		"params": strings.Join(p.Params, ",")})
	cfg, err := e.api.RegisterCniConfiguration(ctx, p)
	if err == nil {
		return RegisterResult{Config: cfg}, nil
	}
	if refused(err) {
		return RegisterResult{}, &RefusedError{What: "CNI configuration " + p.Name, Err: err}
	}
	what := "CNI configuration " + p.Name
	for _, pause := range lostAnswerRechecks {
		if !cloudstack.Sleep(ctx, pause) {
			break
		}
		now, lerr := e.sameNameCNI(ctx, p)
		if lerr != nil {
			return RegisterResult{}, &LostAnswerError{What: what, Err: errors.Join(err, lerr)}
		}
		if len(now) == 0 {
			continue
		}
		// CloudStack keeps one configuration of a name per account, so the
		// one now listed is the register's only if it holds what was sent.
		if SameUserData(now[0].UserData, p.Config) {
			e.logf(ctx, "adopted the CNI configuration of a register whose answer was lost", map[string]any{"id": now[0].ID})
			return RegisterResult{Config: now[0], Adopted: true, LostErr: err}, nil
		}
		return RegisterResult{}, &LostAnswerError{What: what, Err: err,
			Candidates: []string{fmt.Sprintf("%s (%s), whose content differs", now[0].Name, now[0].ID)}}
	}
	return RegisterResult{}, &LostAnswerError{What: what, Err: err}
}

// sameNameCNI lists the owner's CNI configurations of the register's name
// (the server compares names without case).
func (e *Engine) sameNameCNI(ctx context.Context, p cloudstack.RegisterCNIParams) ([]cloudstack.CNIConfiguration, error) {
	list, err := e.api.ListCniConfigurations(ctx, cloudstack.ListCNIParams{Ownership: p.Ownership, Name: p.Name})
	if err != nil {
		return nil, &ListError{What: "the CNI configurations named " + p.Name, Err: err}
	}
	return slices.DeleteFunc(list, func(c cloudstack.CNIConfiguration) bool { return !strings.EqualFold(c.Name, p.Name) }), nil
}

// SameUserData tells whether two base64 values hold the same bytes, as
// CloudStack reads them (UserDataManagerImpl.validateUserData decodes
// leniently and stores the bytes re-encoded with padding).
func SameUserData(a, b string) bool {
	da, errA := DecodeUserData(a)
	db, errB := DecodeUserData(b)
	return errA == nil && errB == nil && string(da) == string(db)
}

// DecodeUserData decodes user data as CloudStack does: standard or URL-safe
// alphabet, white space ignored, padding optional.
func DecodeUserData(s string) ([]byte, error) {
	clean := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(clean, "="))
}

// GetCNI reads a CNI configuration by id, in any account or project the
// caller can see; KindNotFound when it is gone.
func (e *Engine) GetCNI(ctx context.Context, id string) (cloudstack.CNIConfiguration, error) {
	return e.api.GetCniConfiguration(ctx, id)
}

// DeleteCNI deletes a CNI configuration. CloudStack deletes one that
// clusters still refer to, after which every listKubernetesClusters that
// holds one of them fails (createKubernetesClusterResponse reads the
// configuration and gets null), so DeleteCNI refuses, before any change,
// while a cluster refers to it. One already gone is no error.
func (e *Engine) DeleteCNI(ctx context.Context, id string, owner cloudstack.Ownership) error {
	users, err := e.CNIUsers(ctx, id)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return &InUseError{What: "CNI configuration", ID: id, Clusters: users, Why: CNIInUseWhy}
	}
	err = e.api.DeleteCniConfiguration(ctx, id, owner)
	if err != nil && !cloudstack.IsNotFound(err) {
		return err
	}
	e.logf(ctx, "deleted CNI configuration", map[string]any{"id": id})
	return nil
}
