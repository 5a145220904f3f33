package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}
`

// wireLine is one output line of the stdio transport.
type wireLine struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// runStdio serves input (then EOF) over StdioTransport and returns the
// output lines once the session has ended.
func runStdio(t *testing.T, s *Server, input string) []wireLine {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, input)
		pw.Close()
	}()
	or, ow := io.Pipe()
	var lines []wireLine
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(or)
		for sc.Scan() {
			var l wireLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("output line is not JSON: %q", sc.Text())
				continue
			}
			lines = append(lines, l)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := s.MCP().Run(ctx, &StdioTransport{In: pr, Out: ow})
	if ctx.Err() != nil {
		t.Fatalf("session did not end at EOF: %v", err)
	}
	ow.Close()
	<-done
	return lines
}

func findID(lines []wireLine, id string) *wireLine {
	for i := range lines {
		if string(lines[i].ID) == id {
			return &lines[i]
		}
	}
	return nil
}

// TestStdioBadLines: a line that is not JSON-RPC gets an error reply and
// the session goes on to answer the next call.
func TestStdioBadLines(t *testing.T) {
	for _, tc := range []struct {
		name, line, id string
		code           int64
	}{
		{"not json", "garbage", "null", -32700},
		{"truncated json", `{"jsonrpc":"2.0","id":5,"method":`, "null", -32700},
		{"not a message", `{"hello":1}`, "null", -32600},
		{"wrong version, with id", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, "5", -32600},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, "null", -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newServer(t, Options{})
			lines := runStdio(t, s, stdioInit+tc.line+"\n"+`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`+"\n")
			if l := findID(lines, "1"); l == nil || l.Result == nil {
				t.Fatalf("no initialize reply: %+v", lines)
			}
			var bad *wireLine
			for i := range lines {
				if lines[i].Error != nil {
					bad = &lines[i]
				}
			}
			if bad == nil || bad.Error.Code != tc.code || string(bad.ID) != tc.id {
				t.Fatalf("bad line reply = %+v, want code %d id %s", bad, tc.code, tc.id)
			}
			l := findID(lines, "7")
			if l == nil || !strings.Contains(string(l.Result), `"browser_read"`) {
				t.Fatalf("no tools/list reply after the bad line: %+v", lines)
			}
		})
	}
}

// TestStdioDrainAtEOF: a call still running when the input ends is
// answered before the session ends.
func TestStdioDrainAtEOF(t *testing.T) {
	s, _ := newServer(t, Options{AllowExec: true})
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"desktop_exec","arguments":{"command":"sleep 0.3; echo done"}}}` + "\n"
	lines := runStdio(t, s, stdioInit+call)
	l := findID(lines, "9")
	if l == nil || !strings.Contains(string(l.Result), `done`) {
		t.Fatalf("reply of the call in flight at EOF lost: %+v", lines)
	}
}
