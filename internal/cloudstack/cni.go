package cloudstack

import (
	"context"
	"strings"

	csgo "github.com/apache/cloudstack-go/v2/cloudstack"
)

// CNIConfigurations registers, reads and deletes CNI configurations
// (4.21+), which CloudStack keeps as user data.
type CNIConfigurations interface {
	// RegisterCniConfiguration is synchronous and never retried.
	RegisterCniConfiguration(ctx context.Context, p RegisterCNIParams) (CNIConfiguration, error)
	ListCniConfigurations(ctx context.Context, p ListCNIParams) ([]CNIConfiguration, error)
	// GetCniConfiguration returns an *Error of kind KindNotFound when the
	// configuration does not exist (any more).
	GetCniConfiguration(ctx context.Context, id string) (CNIConfiguration, error)
	DeleteCniConfiguration(ctx context.Context, id string, owner Ownership) error
}

// CNIConfiguration is a registered CNI configuration.
type CNIConfiguration struct {
	ID   string
	Name string
	// UserData is the configuration as CloudStack stores it: base64,
	// standard alphabet, with padding.
	UserData string
	// Params are the declared variable names, in the order stored.
	Params    []string
	Account   string
	DomainID  string
	ProjectID string
}

// RegisterCNIParams are registerCniConfiguration's parameters. Config is
// sent as the cniconfig parameter, base64; Params as a comma-separated
// list.
type RegisterCNIParams struct {
	Ownership
	Name   string
	Config string
	Params []string
}

// ListCNIParams filters listCniConfiguration; zero values are not sent.
type ListCNIParams struct {
	Ownership
	ID      string
	Name    string
	ListAll bool
}

func cniFrom(u *csgo.UserData) CNIConfiguration {
	c := CNIConfiguration{ID: u.Id, Name: u.Name, UserData: u.Userdata, Account: u.Account, DomainID: u.Domainid,
		ProjectID: u.Projectid}
	if u.Params != "" {
		c.Params = strings.Split(u.Params, ",")
	}
	return c
}

// RegisterCniConfiguration registers a CNI configuration.
func (c *Client) RegisterCniConfiguration(ctx context.Context, p RegisterCNIParams) (CNIConfiguration, error) {
	const command = "registerCniConfiguration"
	cfg, _, err := call(ctx, c, command, callOpts{},
		func(cs *csgo.CloudStackClient) (CNIConfiguration, error) {
			rp := cs.Configuration.NewRegisterCniConfigurationParams(p.Name)
			rp.SetCniconfig(p.Config)
			if len(p.Params) > 0 {
				rp.SetParams(strings.Join(p.Params, ","))
			}
			setOwnership(rp, p.Ownership)
			r, err := cs.Configuration.RegisterCniConfiguration(rp)
			if err != nil {
				return CNIConfiguration{}, err
			}
			if r.CniConfiguration == nil || r.CniConfiguration.Id == "" {
				return CNIConfiguration{}, &Error{Command: command, Text: "the response carries no CNI configuration"}
			}
			return cniFrom(r.CniConfiguration), nil
		})
	return cfg, err
}

// ListCniConfigurations lists CNI configurations, all pages.
func (c *Client) ListCniConfigurations(ctx context.Context, p ListCNIParams) ([]CNIConfiguration, error) {
	const command = "listCniConfiguration"
	return collectPages(ctx, command, c.pageSize, func(cfg CNIConfiguration) string { return cfg.ID },
		func(ctx context.Context, page, pageSize int) ([]CNIConfiguration, int, error) {
			r, _, err := call(ctx, c, command, callOpts{read: true},
				func(cs *csgo.CloudStackClient) (*csgo.ListCniConfigurationResponse, error) {
					lp := cs.Configuration.NewListCniConfigurationParams()
					setOwnership(lp, p.Ownership)
					setIf(lp.SetId, p.ID)
					setIf(lp.SetName, p.Name)
					if p.ListAll {
						lp.SetListall(true)
					}
					lp.SetPage(page)
					lp.SetPagesize(pageSize)
					return cs.Configuration.ListCniConfiguration(lp)
				})
			if err != nil {
				return nil, 0, err
			}
			out := make([]CNIConfiguration, 0, len(r.CniConfiguration))
			for _, u := range r.CniConfiguration {
				out = append(out, cniFrom(u))
			}
			return out, r.Count, nil
		})
}

// GetCniConfiguration lists one CNI configuration by id: first in the
// caller's scope with listall, then in every project the caller may see,
// as GetKubernetesCluster does.
func (c *Client) GetCniConfiguration(ctx context.Context, id string) (CNIConfiguration, error) {
	for _, scope := range []Ownership{{}, {ProjectID: allVisibleProjects}} {
		list, err := c.ListCniConfigurations(ctx, ListCNIParams{Ownership: scope, ID: id, ListAll: true})
		if err != nil {
			return CNIConfiguration{}, err
		}
		for _, cfg := range list {
			if cfg.ID == id {
				return cfg, nil
			}
		}
	}
	return CNIConfiguration{}, NewNotFoundError("listCniConfiguration", "CNI configuration", id)
}

// DeleteCniConfiguration deletes a CNI configuration; owner names the
// account or project it belongs to, which the server checks the caller may
// act for.
func (c *Client) DeleteCniConfiguration(ctx context.Context, id string, owner Ownership) error {
	_, _, err := call(ctx, c, "deleteCniConfiguration", callOpts{},
		func(cs *csgo.CloudStackClient) (struct{}, error) {
			dp := cs.Configuration.NewDeleteCniConfigurationParams(id)
			setOwnership(dp, owner)
			_, err := cs.Configuration.DeleteCniConfiguration(dp)
			return struct{}{}, err
		})
	return err
}
