package simulator

import (
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// caller is the authenticated user of a request.
type caller struct {
	user    *model.User
	account *model.Account
}

func (c *caller) isAdmin() bool { return c.account.AccountType == model.AccountTypeRootAdmin }

// canAccess reports whether the caller may operate on a resource owned by
// the account: root admins on anything, users on their own and their
// projects' resources. Callers hold s.mu.
func (s *Simulator) canAccess(c *caller, accountID string) bool {
	if c.isAdmin() || accountID == c.account.ID {
		return true
	}
	p := s.st.ProjectOfAccount(accountID)
	return p != nil && p.OwnerAccountID == c.account.ID
}

// checkAccess is canAccess as a 531 for commands on one resource.
func (s *Simulator) checkAccess(c *caller, accountID, what string) *wire.APIError {
	if s.canAccess(c, accountID) {
		return nil
	}
	return wire.PermissionDenied("Account %s does not have permission to operate within domain or on resource %s", c.account.Name, what)
}

// resolveOwner picks the owner of a new resource from account/domainid and
// projectid, defaulting to the caller's account.
func (s *Simulator) resolveOwner(c *caller, p wire.Params) (*model.Account, *wire.APIError) {
	if id := p.Str("projectid"); id != "" {
		prj, err := s.accessibleProject(c, id)
		if err != nil {
			return nil, err
		}
		return s.st.Account(prj.AccountID), nil
	}
	if name := p.Str("account"); name != "" {
		a := s.st.AccountByName(name, p.Str("domainid"))
		if a == nil {
			return nil, wire.InvalidParam("Unable to find account %s in domain id=%s", name, p.Str("domainid"))
		}
		if !c.isAdmin() && a.ID != c.account.ID {
			return nil, wire.PermissionDenied("Account %s does not have permission to operate on account %s", c.account.Name, a.Name)
		}
		return a, nil
	}
	return c.account, nil
}

// accessibleProject resolves the projectid parameter of a command: the
// project must exist and, for a user, be owned by the caller's account.
func (s *Simulator) accessibleProject(c *caller, id string) (*model.Project, *wire.APIError) {
	prj := s.st.Project(id)
	if prj == nil {
		return nil, wire.EntityNotFound("projectid", id)
	}
	if !c.isAdmin() && prj.OwnerAccountID != c.account.ID {
		return nil, wire.PermissionDenied("Account %s does not have permission to access project %s", c.account.Name, prj.Name)
	}
	return prj, nil
}

// listScope returns the ownership filter of a list command: projectid
// (-1 for every visible project), account/domainid, listall, or the
// caller's own account.
func (s *Simulator) listScope(c *caller, p wire.Params) (func(accountID string) bool, *wire.APIError) {
	if id := p.Str("projectid"); id != "" {
		if id == "-1" {
			return func(accountID string) bool {
				prj := s.st.ProjectOfAccount(accountID)
				return prj != nil && (c.isAdmin() || prj.OwnerAccountID == c.account.ID)
			}, nil
		}
		prj, err := s.accessibleProject(c, id)
		if err != nil {
			return nil, err
		}
		return func(accountID string) bool { return accountID == prj.AccountID }, nil
	}
	if name := p.Str("account"); name != "" {
		a := s.st.AccountByName(name, p.Str("domainid"))
		if a == nil {
			return nil, wire.InvalidParam("Unable to find account by name %s in domain %s", name, p.Str("domainid"))
		}
		if !c.isAdmin() && a.ID != c.account.ID {
			return nil, wire.PermissionDenied("Account %s does not have permission to list resources of account %s", c.account.Name, a.Name)
		}
		return func(accountID string) bool { return accountID == a.ID }, nil
	}
	listAll, _ := p.Bool("listall")
	if listAll && c.isAdmin() {
		domainID := p.Str("domainid")
		return func(accountID string) bool {
			a := s.st.Account(accountID)
			return a != nil && a.AccountType != model.AccountTypeProject && (domainID == "" || strings.EqualFold(a.DomainID, domainID))
		}, nil
	}
	return func(accountID string) bool { return accountID == c.account.ID }, nil
}

// listFilter is the ownership filter of a list command that takes an id:
// its scope, and the resource asked for by id, if any.
type listFilter[T any] struct {
	s     *Simulator
	c     *caller
	scope func(accountID string) bool
	byID  *T
	// idScoped: a list by id still keeps to the scope. Only an admin who
	// names no account or project sees any resource by its id
	// (AccountManagerImpl.buildACLSearchParameters: a user's list is
	// narrowed to their account, so a project's resources need projectid).
	idScoped bool
}

// newListFilter reads the scope parameters, then the id parameter, looked
// up with find.
func newListFilter[T any](s *Simulator, c *caller, p wire.Params, find func(string) *T) (listFilter[T], *wire.APIError) {
	scope, err := s.listScope(c, p)
	if err != nil {
		return listFilter[T]{}, err
	}
	byID, err := wire.ResolveParam(p, "id", find)
	if err != nil {
		return listFilter[T]{}, err
	}
	idScoped := !c.isAdmin() || p.Str("projectid") != "" || p.Str("account") != ""
	return listFilter[T]{s: s, c: c, scope: scope, byID: byID, idScoped: idScoped}, nil
}

// excludes reports whether the list leaves out item, owned by accountID.
// With an id the list has that resource only, and only if the caller may
// access it and, unless an admin asks without naming an owner, it is in
// scope; without an id, it has the resources in scope.
func (f listFilter[T]) excludes(item *T, accountID string) bool {
	if f.byID != nil {
		return item != f.byID || !f.s.canAccess(f.c, accountID) || (f.idScoped && !f.scope(accountID))
	}
	return !f.scope(accountID)
}

// ownerFields adds account or project and domain fields.
func (s *Simulator) ownerFields(out map[string]any, accountID string) {
	a := s.st.Account(accountID)
	if a == nil {
		return
	}
	if prj := s.st.ProjectOfAccount(a.ID); prj != nil {
		out["projectid"] = prj.ID
		out["project"] = prj.Name
	} else {
		out["account"] = a.Name
	}
	if d := s.st.Domain(a.DomainID); d != nil {
		out["domainid"] = d.ID
		out["domain"] = d.Name
		out["domainpath"] = d.Path
	}
}
