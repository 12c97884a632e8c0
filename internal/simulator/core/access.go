package core

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// Handler runs one API command on an area (A) with the lock held and returns
// the body inside "<command>response".
type Handler[A any] func(area A, c *Caller, p wire.Params) (map[string]any, *wire.APIError)

// Caller is the authenticated user of a request.
type Caller struct {
	User    *model.User
	Account *model.Account
}

// IsAdmin reports whether the caller is a root admin.
func (c *Caller) IsAdmin() bool { return c.Account.AccountType == model.AccountTypeRootAdmin }

// CanAccess reports whether the caller may operate on a resource owned by
// the account: root admins on anything, users on their own and their
// projects' resources. Callers hold the lock.
func (r *Runtime) CanAccess(c *Caller, accountID string) bool {
	if c.IsAdmin() || accountID == c.Account.ID {
		return true
	}
	p := r.DB.ProjectOfAccount(accountID)
	return p != nil && p.OwnerAccountID == c.Account.ID
}

// CheckAccess is CanAccess as a 531 for commands on one resource.
func (r *Runtime) CheckAccess(c *Caller, accountID, what string) *wire.APIError {
	if r.CanAccess(c, accountID) {
		return nil
	}
	return wire.PermissionDenied("Account %s does not have permission to operate within domain or on resource %s", c.Account.Name, what)
}

// ResolveOwner picks the owner of a new resource from account/domainid and
// projectid, defaulting to the caller's account.
func (r *Runtime) ResolveOwner(c *Caller, p wire.Params) (*model.Account, *wire.APIError) {
	if id := p.Str("projectid"); id != "" {
		prj, err := r.AccessibleProject(c, id)
		if err != nil {
			return nil, err
		}
		return r.DB.Account(prj.AccountID), nil
	}
	if name := p.Str("account"); name != "" {
		a := r.DB.AccountByName(name, p.Str("domainid"))
		if a == nil {
			return nil, wire.InvalidParam("Unable to find account %s in domain id=%s", name, p.Str("domainid"))
		}
		if !c.IsAdmin() && a.ID != c.Account.ID {
			return nil, wire.PermissionDenied("Account %s does not have permission to operate on account %s", c.Account.Name, a.Name)
		}
		return a, nil
	}
	return c.Account, nil
}

// AccessibleProject resolves the projectid parameter of a command: the
// project must exist and, for a user, be owned by the caller's account.
func (r *Runtime) AccessibleProject(c *Caller, id string) (*model.Project, *wire.APIError) {
	prj := r.DB.Project(id)
	if prj == nil {
		return nil, wire.EntityNotFound("projectid", id)
	}
	if !c.IsAdmin() && prj.OwnerAccountID != c.Account.ID {
		return nil, wire.PermissionDenied("Account %s does not have permission to access project %s", c.Account.Name, prj.Name)
	}
	return prj, nil
}

// ListScope returns the ownership filter of a list command: projectid
// (-1 for every visible project), account/domainid, listall, or the
// caller's own account.
func (r *Runtime) ListScope(c *Caller, p wire.Params) (func(accountID string) bool, *wire.APIError) {
	if id := p.Str("projectid"); id != "" {
		if id == "-1" {
			return func(accountID string) bool {
				prj := r.DB.ProjectOfAccount(accountID)
				return prj != nil && (c.IsAdmin() || prj.OwnerAccountID == c.Account.ID)
			}, nil
		}
		prj, err := r.AccessibleProject(c, id)
		if err != nil {
			return nil, err
		}
		return func(accountID string) bool { return accountID == prj.AccountID }, nil
	}
	if name := p.Str("account"); name != "" {
		a := r.DB.AccountByName(name, p.Str("domainid"))
		if a == nil {
			return nil, wire.InvalidParam("Unable to find account by name %s in domain %s", name, p.Str("domainid"))
		}
		if !c.IsAdmin() && a.ID != c.Account.ID {
			return nil, wire.PermissionDenied("Account %s does not have permission to list resources of account %s", c.Account.Name, a.Name)
		}
		return func(accountID string) bool { return accountID == a.ID }, nil
	}
	listAll, _ := p.Bool("listall")
	if listAll && c.IsAdmin() {
		domainID := p.Str("domainid")
		return func(accountID string) bool {
			a := r.DB.Account(accountID)
			return a != nil && a.AccountType != model.AccountTypeProject && (domainID == "" || strings.EqualFold(a.DomainID, domainID))
		}, nil
	}
	return func(accountID string) bool { return accountID == c.Account.ID }, nil
}

// ListFilter is the ownership filter of a list command that takes an id:
// its scope, and the resource asked for by id, if any.
type ListFilter[T any] struct {
	r     *Runtime
	c     *Caller
	scope func(accountID string) bool
	byID  *T
	// idScoped: a list by id still keeps to the scope. Only an admin who
	// names no account or project sees any resource by its id
	// (AccountManagerImpl.buildACLSearchParameters: a user's list is
	// narrowed to their account, so a project's resources need projectid).
	idScoped bool
}

// NewListFilter reads the scope parameters, then the id parameter, looked
// up with find.
func NewListFilter[T any](r *Runtime, c *Caller, p wire.Params, find func(string) *T) (ListFilter[T], *wire.APIError) {
	scope, err := r.ListScope(c, p)
	if err != nil {
		return ListFilter[T]{}, err
	}
	byID, err := wire.ResolveParam(p, "id", find)
	if err != nil {
		return ListFilter[T]{}, err
	}
	idScoped := !c.IsAdmin() || p.Str("projectid") != "" || p.Str("account") != ""
	return ListFilter[T]{r: r, c: c, scope: scope, byID: byID, idScoped: idScoped}, nil
}

// ByID is the resource the list asks for by id, or nil.
func (f ListFilter[T]) ByID() *T { return f.byID }

// Excludes reports whether the list leaves out item, owned by accountID.
// With an id the list has that resource only, and only if the caller may
// access it and, unless an admin asks without naming an owner, it is in
// scope; without an id, it has the resources in scope.
func (f ListFilter[T]) Excludes(item *T, accountID string) bool {
	if f.byID != nil {
		return item != f.byID || !f.r.CanAccess(f.c, accountID) || (f.idScoped && !f.scope(accountID))
	}
	return !f.scope(accountID)
}

// OwnerFields adds account or project and domain fields.
func (r *Runtime) OwnerFields(out map[string]any, accountID string) {
	a := r.DB.Account(accountID)
	if a == nil {
		return
	}
	if prj := r.DB.ProjectOfAccount(a.ID); prj != nil {
		out["projectid"] = prj.ID
		out["project"] = prj.Name
	} else {
		out["account"] = a.Name
	}
	if d := r.DB.Domain(a.DomainID); d != nil {
		out["domainid"] = d.ID
		out["domain"] = d.Name
		out["domainpath"] = d.Path
	}
}
