package simulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// defaultPageSize is default.page.size, also the largest page allowed.
const defaultPageSize = 500

func writeJSON(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError writes the error envelope; the HTTP status is the error code.
func writeError(w http.ResponseWriter, respKey string, e *apiError) {
	body := map[string]any{"uuidList": []string{}, "errorcode": e.code, "errortext": e.text}
	if e.csCode != 0 {
		body["cserrorcode"] = e.csCode
	}
	writeJSON(w, e.code, map[string]any{respKey: body})
}

// matchesKeyword is the LIKE %keyword% filter.
func matchesKeyword(p params, values ...string) bool {
	kw := p.str("keyword")
	if kw == "" {
		return true
	}
	for _, v := range values {
		if containsFold(v, kw) {
			return true
		}
	}
	return false
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// csTime formats a date as CloudStack does: yyyy-MM-dd'T'HH:mm:ssZ.
func csTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05-0700") }
