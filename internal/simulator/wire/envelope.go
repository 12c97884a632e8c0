package wire

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// DefaultPageSize is default.page.size, also the largest page allowed.
const DefaultPageSize = 500

func WriteJSON(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// WriteError writes the error envelope; the HTTP status is the error code.
func WriteError(w http.ResponseWriter, respKey string, e *APIError) {
	body := map[string]any{"uuidList": []string{}, "errorcode": e.Code, "errortext": e.Text}
	if e.CSCode != 0 {
		body["cserrorcode"] = e.CSCode
	}
	WriteJSON(w, e.Code, map[string]any{respKey: body})
}

// MatchesKeyword is the LIKE %keyword% filter.
func MatchesKeyword(p Params, values ...string) bool {
	kw := p.Str("keyword")
	if kw == "" {
		return true
	}
	for _, v := range values {
		if ContainsFold(v, kw) {
			return true
		}
	}
	return false
}

func ContainsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// CSTime formats a date as CloudStack does: yyyy-MM-dd'T'HH:mm:ssZ.
func CSTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05-0700") }
