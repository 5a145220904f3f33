package clustered

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/link/gateway"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
	"github.com/rpa-dev/rpa/lang"
)

// Start makes the cluster's schedules part of replica g (on node n): it serves them at
// /schedules of g (Handler, behind the agents' token; call Start before g.Serve) and, once
// JetStream answers (retried in the background until ctx ends), fires them and lands their
// runs until ctx ends.
func Start(ctx context.Context, g *gateway.Gateway, n *cluster.Node, log *slog.Logger) {
	var s atomic.Pointer[Scheduler]
	h := Handler(s.Load)
	g.Mount("/schedules", h)
	g.Mount("/schedules/", h)
	go func() {
		sc, err := Open(ctx, Config{Node: n, Lander: g, Logger: log})
		if err != nil {
			if ctx.Err() == nil {
				log.Error("the cluster's schedules cannot run", "err", err)
			}
			return
		}
		s.Store(sc)
		AddResource(g, sc)
		if err := sc.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("the cluster's schedules stopped", "err", err)
		}
	}()
}

// URI is the MCP resource of the cluster's schedules at the gateway, as rpa serve's
// rpa://schedules is a desktop's.
const URI = "rpa://schedules"

// AddResource serves the cluster's schedules to agents at gateway g as the MCP resource URI:
// {"schedules": [Record...]} as GET /schedules gives them, read from s's copy of the bucket,
// webhook URLs cut to their host (schedule.HostOnly).
func AddResource(g *gateway.Gateway, s *Scheduler) {
	g.AddResource(&mcp.Resource{URI: URI, Name: "schedules", Title: "Schedules of the gateway cluster", MIMEType: "application/json",
		Description: "The tools the gateway cluster calls on a schedule (rpa gateway schedule): the desktop or any offering the tool, " +
			"when (cron and zone, or interval), the next time, arguments, retries, and the last fire; read-only."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			rs, err := s.List(ctx)
			if err != nil {
				return nil, err
			}
			js, err := json.Marshal(map[string]any{"schedules": forAgents(rs)})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: URI, MIMEType: "application/json", Text: string(js)}}}, nil
		})
}

// forAgents is rs with webhook URLs cut to their host (a path or query may hold a token).
func forAgents(rs []*Record) []*Record {
	out := make([]*Record, len(rs))
	for i, r := range rs {
		c := *r
		c.Def.Notify = schedule.HostOnly(c.Def.Notify)
		out[i] = &c
	}
	return out
}

// Handler is the HTTP API of the cluster's schedules (docs/schedules.md, "In a gateway
// cluster"), JSON in and out; s gives the Scheduler (nil while it is not open: 503):
//
//	GET    /schedules              {"schedules": [Record...]}
//	POST   /schedules              a Def: 201 and its Record; 400 bad input, 409 name taken
//	GET    /schedules/NAME         its Record; 404
//	DELETE /schedules/NAME         204; 404
//	POST   /schedules/NAME/pause   200 and its Record (resume likewise)
//
// Errors are {"error": "..."}.
func Handler(s func() *Scheduler) http.Handler {
	mux := http.NewServeMux()
	with := func(f func(w http.ResponseWriter, r *http.Request, s *Scheduler)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			sc := s()
			if sc == nil {
				writeErr(w, http.StatusServiceUnavailable, errors.New("the cluster's schedules are not ready (JetStream does not answer yet)"))
				return
			}
			f(w, r, sc)
		}
	}
	mux.HandleFunc("GET /schedules", with(func(w http.ResponseWriter, r *http.Request, s *Scheduler) {
		l, err := s.List(r.Context())
		if err != nil {
			writeErr(w, http.StatusServiceUnavailable, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"schedules": forAgents(l)})
	}))
	mux.HandleFunc("POST /schedules", with(func(w http.ResponseWriter, r *http.Request, s *Scheduler) {
		d, err := decodeDef(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			writeErr(w, http.StatusBadRequest, err)
			return
		}
		rec, err := s.Add(r.Context(), d)
		if err != nil {
			code := http.StatusBadRequest
			if strings.Contains(err.Error(), "a schedule of that name exists") {
				code = http.StatusConflict
			}
			writeErr(w, code, err)
			return
		}
		writeJSON(w, http.StatusCreated, forAgents([]*Record{rec})[0])
	}))
	mux.HandleFunc("GET /schedules/{name}", with(func(w http.ResponseWriter, r *http.Request, s *Scheduler) {
		rec, err := s.Get(r.Context(), r.PathValue("name"))
		if err != nil {
			writeErr(w, notFound(err), err)
			return
		}
		writeJSON(w, http.StatusOK, forAgents([]*Record{rec})[0])
	}))
	mux.HandleFunc("DELETE /schedules/{name}", with(func(w http.ResponseWriter, r *http.Request, s *Scheduler) {
		if err := s.Remove(r.Context(), r.PathValue("name")); err != nil {
			writeErr(w, notFound(err), err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	for verb, paused := range map[string]bool{"pause": true, "resume": false} {
		mux.HandleFunc("POST /schedules/{name}/"+verb, with(func(w http.ResponseWriter, r *http.Request, s *Scheduler) {
			name := r.PathValue("name")
			rec, err := s.SetPaused(r.Context(), name, paused)
			if err != nil {
				writeErr(w, notFound(err), err)
				return
			}
			writeJSON(w, http.StatusOK, forAgents([]*Record{rec})[0])
		}))
	}
	return mux
}

// decodeDef reads a Def (one JSON object, no unknown field). The error of
// a body longer than lang.MaxEcho names the field and quotes no value
// ("want a schedule as JSON: every: not a valid string"): encoding/json's
// errors quote a field name, a number, or (through a field's own decoder:
// a time, a duration) a string whole.
func decodeDef(r io.Reader) (Def, error) {
	var d Def
	b, err := io.ReadAll(r)
	if err != nil {
		return d, fmt.Errorf("reading the schedule: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err = dec.Decode(&d)
	if err == nil {
		return d, nil
	}
	const prefix = "want a schedule as JSON: "
	var se *json.SyntaxError
	switch {
	case len(b) <= lang.MaxEcho:
		return d, errors.New(prefix + err.Error()) // as precise as the decoder says it, and short
	case errors.As(err, &se) || !json.Valid(b):
		return d, errors.New(prefix + err.Error()) // names a character and no more
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		k, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return d, errors.New(prefix + "unknown field " + lang.Echo(k))
	}
	_, msg := mrtr.BadParam(b, func(b []byte) error { return json.Unmarshal(b, new(Def)) })
	if f, ok := strings.CutPrefix(msg, "params: "); ok {
		msg = f // the whole body
	}
	return d, errors.New(prefix + msg)
}

func notFound(err error) int {
	if strings.Contains(err.Error(), "no such schedule") {
		return http.StatusNotFound
	}
	return http.StatusServiceUnavailable
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}
