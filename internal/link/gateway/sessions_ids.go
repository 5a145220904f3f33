package gateway

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/nats-io/nats.go"
)

// Requests to the client of a session held by several replicas (sessions.go): each replica's
// session (the SDK's ServerSession) numbers its requests to the client (elicitation, sampling,
// ping) from 1, so two replicas asking one session at once would send the client the same id,
// and an answer could reach the wrong one. Every request that leaves a replica for the client
// gets the id "REPLICA~ID" (ID the JSON of the SDK's id; JSON-RPC ids may be strings, and the
// client echoes them), and the client's answer is routed by it: served here with the SDK's id
// restored, or published to the replica it names only.

// idSep separates the replica from the SDK's id (replica names have letters, digits, - and _).
const idSep = "~"

// hdrTarget names the one replica shared answers are for.
const hdrTarget = "Rpa-Target"

// tagWriter writes the SDK's answer to a session's POST or GET: in an event stream, the id of
// every JSON-RPC request (a data: line with a method and an id) gets this replica's tag.
type tagWriter struct {
	http.ResponseWriter
	tag     string
	decided bool
	sse     bool
	buf     []byte
}

func (t *tagWriter) Write(p []byte) (int, error) {
	if !t.decided {
		t.decided = true
		t.sse = strings.HasPrefix(t.Header().Get("Content-Type"), "text/event-stream")
	}
	if !t.sse {
		return t.ResponseWriter.Write(p)
	}
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := t.ResponseWriter.Write(tagLine(t.buf[:i+1], t.tag)); err != nil {
			return 0, err
		}
		t.buf = t.buf[i+1:]
	}
	return len(p), nil
}

// Flush writes what is pending (an event is written whole before its flush) and flushes.
func (t *tagWriter) Flush() {
	if len(t.buf) > 0 {
		_, _ = t.ResponseWriter.Write(t.buf)
		t.buf = nil
	}
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (t *tagWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// tagLine returns an event stream line with the id of the JSON-RPC request it carries tagged.
func tagLine(line []byte, tag string) []byte {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		return line
	}
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(data, &head) != nil || head.Method == "" || len(head.ID) == 0 || string(head.ID) == "null" {
		return line
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(data, &msg) != nil {
		return line
	}
	msg["id"], _ = json.Marshal(tag + idSep + string(head.ID))
	b, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return append(append([]byte("data: "), b...), '\n')
}

// untag splits a tagged id: the replica it names and the SDK's id; ok false when id is not one.
func untag(id json.RawMessage) (replica string, orig json.RawMessage, ok bool) {
	var s string
	if json.Unmarshal(id, &s) != nil {
		return "", nil, false
	}
	replica, rest, ok := strings.Cut(s, idSep)
	if !ok || replica == "" || !json.Valid([]byte(rest)) {
		return "", nil, false
	}
	return replica, json.RawMessage(rest), true
}

// routeAnswers sends the client's answers in a POST of session id (a body of JSON-RPC responses
// only) where they belong: those tagged for another replica are published to it, with the SDK's
// id restored; the others stay for this replica (tagged ones restored; untagged ones, from a
// replica that does not tag, are also published to every replica as before). It returns the
// body left for this replica and whether any answer is left.
func (s *sessionShare) routeAnswers(body []byte, id string) ([]byte, bool) {
	trimmed := bytes.TrimSpace(body)
	batch := len(trimmed) > 0 && trimmed[0] == '['
	var raws []json.RawMessage
	if batch {
		if json.Unmarshal(trimmed, &raws) != nil {
			return body, true
		}
	} else {
		raws = []json.RawMessage{trimmed}
	}
	var local, untagged []json.RawMessage
	remote := map[string][]json.RawMessage{}
	for _, raw := range raws {
		var msg map[string]json.RawMessage
		if json.Unmarshal(raw, &msg) != nil {
			return body, true
		}
		replica, orig, ok := untag(msg["id"])
		if !ok {
			local, untagged = append(local, raw), append(untagged, raw)
			continue
		}
		msg["id"] = orig
		b, err := json.Marshal(msg)
		if err != nil {
			return body, true
		}
		if replica == s.r.name {
			local = append(local, b)
		} else {
			remote[replica] = append(remote[replica], b)
		}
	}
	for replica, msgs := range remote {
		s.publishAnswers(id, replica, msgs)
	}
	if len(untagged) > 0 {
		s.publishAnswers(id, "", untagged)
	}
	if len(local) == 0 {
		return nil, false
	}
	if !batch && len(local) == 1 {
		return local[0], true
	}
	b, _ := json.Marshal(local)
	return b, true
}

// publishAnswers publishes answers of session id to replica ("" every other replica).
func (s *sessionShare) publishAnswers(id, replica string, msgs []json.RawMessage) {
	data := []byte(msgs[0])
	if len(msgs) > 1 {
		data, _ = json.Marshal(msgs)
	}
	m := nats.NewMsg(answersSubject + sessionKey(id))
	m.Header.Set(hdrReplica, s.r.name)
	if replica != "" {
		m.Header.Set(hdrTarget, replica)
	}
	m.Data = data
	_ = s.r.n.Conn().PublishMsg(m)
}
