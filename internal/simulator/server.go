package simulator

import (
	"net/http"
	"time"

	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/catalog"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/cluster"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/core"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/model"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/network"
	"github.com/cloudstack-cks/terraform-provider-cks/internal/simulator/wire"
)

// commands maps API command names (case-sensitive, as CloudStack's
// command map is) to handlers, each run with the lock held.
var commands map[string]core.Handler[*Simulator]

func init() {
	commands = map[string]core.Handler[*Simulator]{}
	adopt(catalog.Commands, func(s *Simulator) *catalog.Catalog { return s.cat })
	adopt(network.Commands, func(s *Simulator) *network.Networks { return s.net })
	adopt(cluster.Commands, func(s *Simulator) *cluster.Workers { return s.cl })
}

// adopt adds an area's commands, each run on the simulator's instance of
// the area.
func adopt[A any](handlers map[string]core.Handler[A], area func(*Simulator) A) {
	for name, h := range handlers {
		if _, twice := commands[name]; twice {
			panic("simulator: command " + name + " defined by two areas")
		}
		commands[name] = func(s *Simulator, c *core.Caller, p wire.Params) (map[string]any, *wire.APIError) {
			return h(area(s), c, p)
		}
	}
}

// serveAPI is /client/api: GET query or POST form, signature check, then
// the command.
func (s *Simulator) serveAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		wire.WriteError(w, "errorresponse", &wire.APIError{Code: 430, CSCode: wire.CSServerAPIException, Text: "Malformed request"})
		return
	}
	form := r.Form
	command := wire.FirstValueFold(form, "command")
	respKey := "errorresponse"
	if command != "" {
		s.rt.Counters.Add(command)
		respKey = wire.LowerCommand(command) + "response"
	}
	if d := s.rt.Faults.LatencyFor(command); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	c := s.authenticate(form)
	if c == nil {
		wire.WriteError(w, respKey, &wire.APIError{Code: wire.CodeUnauthorized, Text: wire.AuthFailureText})
		return
	}
	handler, ok := commands[command]
	if !ok {
		wire.WriteError(w, respKey, &wire.APIError{Code: wire.CodeUnsupported, CSCode: wire.CSServerAPIException,
			Text: "The given command does not exist or it is not available for user"})
		return
	}
	if injected, ok := s.rt.Faults.TakeAPIFailure(command); ok {
		wire.WriteError(w, respKey, injected)
		return
	}
	p := wire.NewParams(command, form)
	s.rt.Lock()
	body, err := handler(s, c, p)
	s.rt.Unlock()
	if after := s.rt.Faults.TakeAfterCall(command); after != nil {
		after() // another client's change, between this answer and the next call
	}
	if s.rt.Faults.TakeLostResponse(command) {
		// The command ran (an async one has its job queued), but a proxy
		// in front of the server times out and answers for it.
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusGatewayTimeout)
		_, _ = w.Write([]byte("<html><body><h1>504 Gateway Time-out</h1></body></html>\n"))
		return
	}
	if err != nil {
		wire.WriteError(w, respKey, err)
		return
	}
	wire.WriteJSON(w, http.StatusOK, map[string]any{respKey: body})
}

// authenticate verifies the api key and signature and returns the caller,
// or nil.
func (s *Simulator) authenticate(form map[string][]string) *core.Caller {
	s.rt.Lock()
	defer s.rt.Unlock()
	var found *model.User
	secretFor := func(apiKey string) (string, bool) {
		for _, u := range s.rt.DB.Users {
			if u.APIKey == apiKey {
				found = u
				return u.SecretKey, true
			}
		}
		return "", false
	}
	if !wire.VerifySignature(form, secretFor, time.Now()) || found == nil {
		return nil
	}
	a := s.rt.DB.Account(found.AccountID)
	if a == nil {
		return nil
	}
	return &core.Caller{User: found, Account: a}
}
