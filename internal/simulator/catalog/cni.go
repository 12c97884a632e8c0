package catalog

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// CNI configurations (4.21+) are user data with for_cks set
// (UserDataRegistryServiceImpl, ManagementServerImpl before it):
// registerCniConfiguration stores one, listCniConfiguration lists them,
// deleteCniConfiguration removes one as deleteUserData does. All three are
// synchronous and open to users.

// userDataMaxLength is vm.userdata.max.length's default: the longest user
// data, base64 encoded, the server accepts.
const userDataMaxLength = 32768

// userDataMaxPostLength is the longest user data a POST may carry
// (UserDataManagerImpl.MAX_HTTP_POST_LENGTH).
const userDataMaxPostLength = 1048576

func cmdRegisterCniConfiguration(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	name, err := p.Require("name")
	if err != nil {
		return nil, err
	}
	owner, err := s.ResolveOwner(c, p)
	if err != nil {
		return nil, err
	}
	// checkForVRMetadataFileNames is not modelled (FIDELITY.md).
	for _, u := range s.DB.UserData {
		// UserDataDao.findByName: the owner's user data of any kind, the
		// name compared under the database's case-insensitive collation.
		if !u.Removed && u.AccountID == owner.ID && strings.EqualFold(u.Name, name) {
			return nil, wire.InvalidParam("A userdata with name %s already exists for this account.", name)
		}
	}
	if !p.Has("cniconfig") {
		// The user_data column is NOT NULL; the insert fails.
		return nil, wire.InternalError("DB Exception on: INSERT INTO user_data: Column 'user_data' cannot be null")
	}
	content, err := validateUserData(p.Str("cniconfig"))
	if err != nil {
		return nil, err
	}
	u := &model.UserData{InternalID: s.DB.NextID("userdata"), ID: s.NewUUID(), Name: name, AccountID: owner.ID,
		Content: content, Params: p.Str("params"), ForCKS: true, Created: s.Now()}
	s.DB.UserData = append(s.DB.UserData, u)
	s.Logf("registered CNI configuration %s (%s) for account %s", u.Name, u.ID, owner.Name)
	return map[string]any{"cniconfig": s.renderUserData(u)}, nil
}

// validateUserData is UserDataManagerImpl.validateUserData for a POST: URL
// decoding when the value has a "%", the base64 alphabet check
// (Base64.isBase64), the length limits, then the bytes re-encoded as
// standard base64 with padding, which is what the server stores.
func validateUserData(value string) (string, *wire.APIError) {
	if strings.Contains(value, "%") {
		decoded, err := url.QueryUnescape(value)
		if err != nil {
			return "", wire.InvalidParam("Url decoding of userdata failed.")
		}
		value = decoded
	}
	if !isBase64(value) {
		return "", wire.InvalidParam("User data is not base64 encoded")
	}
	switch {
	case len(value) >= userDataMaxPostLength:
		return "", wire.InvalidParam("User data is too long for an http POST request")
	case len(value) > userDataMaxLength:
		return "", wire.InvalidParam("User data has exceeded configurable max length : %d", userDataMaxLength)
	}
	data := decodeBase64Leniently(value)
	if len(data) < 1 {
		return "", wire.InvalidParam("User data is too short")
	}
	return base64.StdEncoding.EncodeToString(data), nil
}

// isBase64 is commons-codec's Base64.isBase64(String): every character is
// of the standard or URL-safe alphabet, padding or white space.
func isBase64(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9',
			r == '+', r == '/', r == '-', r == '_', r == '=',
			r == ' ', r == '\t', r == '\r', r == '\n':
		default:
			return false
		}
	}
	return true
}

// decodeBase64Leniently is Base64.decodeBase64: white space is skipped,
// both alphabets are read, decoding stops at padding and a trailing
// character that completes no byte is dropped.
func decodeBase64Leniently(s string) []byte {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case ' ', '\t', '\r', '\n':
		case '-':
			b.WriteByte('+')
		case '_':
			b.WriteByte('/')
		default:
			b.WriteRune(r)
		}
	}
	clean, _, _ := strings.Cut(b.String(), "=")
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	data, err := base64.RawStdEncoding.DecodeString(clean)
	if err != nil {
		return nil
	}
	return data
}

// cmdListCniConfiguration is listCniConfiguration: the CNI configurations
// in the caller's scope, newest first (UserDataRegistryServiceImpl.
// listUserDatas, Filter(UserDataVO.class, "id", false, ...)); name is an
// exact match, keyword a substring.
func cmdListCniConfiguration(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	filter, err := core.NewListFilter(s.Runtime, c, p, s.DB.UserDataByID)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	for _, u := range slices.Backward(s.DB.UserData) {
		switch {
		case u.Removed, !u.ForCKS,
			filter.Excludes(u, u.AccountID),
			p.Has("name") && !strings.EqualFold(p.Str("name"), u.Name),
			!wire.MatchesKeyword(p, u.Name):
			continue
		}
		items = append(items, s.renderUserData(u))
	}
	return s.ListBody(p, "cniconfig", items)
}

// cmdDeleteCniConfiguration is deleteCniConfiguration, which is
// deleteUserData: the owner the caller names (account and domainid, or
// projectid; the caller by default) must be one the caller may act for,
// and the user data is removed. It is not compared with the user data's own
// owner, and nothing checks the clusters that refer to it.
func cmdDeleteCniConfiguration(s *Catalog, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
	if _, err := p.Require("id"); err != nil {
		return nil, err
	}
	u, err := wire.ResolveParam(p, "id", s.DB.UserDataByID)
	if err != nil {
		return nil, err
	}
	if _, err := s.ResolveOwner(c, p); err != nil {
		return nil, err
	}
	u.Removed = true
	s.Logf("removed CNI configuration %s (%s)", u.Name, u.ID)
	return map[string]any{"success": true}, nil
}

// renderUserData is ApiResponseHelper.createUserDataResponse.
func (s *Catalog) renderUserData(u *model.UserData) map[string]any {
	out := map[string]any{
		"id":             u.ID,
		"name":           u.Name,
		"userdata":       u.Content,
		"hasannotations": false,
	}
	if u.Params != "" {
		out["params"] = u.Params
	}
	s.OwnerFields(out, u.AccountID)
	if _, ok := out["account"]; ok {
		out["accountid"] = u.AccountID
	}
	return out
}

// CNIConfigGone is the failure of a cluster response whose CNI
// configuration was deleted: createKubernetesClusterResponse reads it with
// userDataDao.findById, which skips removed rows, and calls getUuid() on
// the null it gets. The NullPointerException fails the whole command; the
// API layer shows its message to root admins and a generic text to others
// (ApiServer.handleRequest, BaseCmd.USER_ERROR_MESSAGE).
func (s *Catalog) CNIConfigGone(cl *model.Cluster, c *core.Caller) *wire.APIError {
	if cl.CNIConfigID == "" || s.DB.UserDataByID(cl.CNIConfigID) != nil {
		return nil
	}
	if c.IsAdmin() {
		return wire.InternalError(`Cannot invoke "com.cloud.user.UserDataVO.getUuid()" because "cniConfig" is null`)
	}
	return wire.InternalError("Internal error executing command, please contact your system administrator")
}
