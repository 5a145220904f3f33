package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}
`

// wireLine is one output line of the stdio transport.
type wireLine struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
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
	// The bound only catches a hang: under -race on a loaded machine CI took more than 20 s to
	// read TestLongInputNotEchoed's four 5 MB lines.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
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
//
// The reply names what is wrong: the byte where a line stops being JSON,
// the message itself when it is no object (it said "params: want an
// object" for a string and `jsonrpc: want "2.0"` for null).
func TestStdioBadLines(t *testing.T) {
	for _, tc := range []struct {
		name, line, id string
		code           int64
		msg            string
	}{
		{"not json", "garbage", "null", -32700, "Parse error: the line is not valid JSON (at byte 1)"},
		{"bad byte", `  {"jsonrpc":"2.0",,"id":5}`, "null", -32700, "Parse error: the line is not valid JSON (at byte 20)"},
		{"truncated json", `{"jsonrpc":"2.0","id":5,"method":`, "null", -32700, "Parse error: the line is not valid JSON: it ends early (after byte 33)"},
		{"not a message", `{"hello":1}`, "null", -32600, ""},
		{"wrong version, with id", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, "5", -32600, `Invalid Request: jsonrpc: want "2.0"`},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, "null", -32600, ""},
		{"a string", `"just a string"`, "null", -32600, "Invalid Request: message: want an object, got a string"},
		{"null", `null`, "null", -32600, "Invalid Request: message: want an object, got null"},
		{"a number", `5`, "null", -32600, "Invalid Request: message: want an object, got a number"},
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
			if tc.msg != "" && bad.Error.Message != tc.msg {
				t.Errorf("bad line reply %q, want %q", bad.Error.Message, tc.msg)
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

// TestStdioBeforeInitialize: a call sent before initialize is answered
// with JSON-RPC -32600 Invalid Request (the SDK's plain error went out as
// code 0, which JSON-RPC does not define), and the session goes on to
// initialize and answer.
func TestStdioBeforeInitialize(t *testing.T) {
	s, _ := newServer(t, Options{})
	lines := runStdio(t, s, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`+"\n"+stdioInit+`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`+"\n")
	l := findID(lines, "3")
	if l == nil || l.Error == nil || l.Error.Code != -32600 || !strings.Contains(l.Error.Message, "invalid during session initialization") {
		t.Fatalf("tools/list before initialize: %+v", l)
	}
	if l := findID(lines, "7"); l == nil || l.Result == nil {
		t.Fatalf("no tools/list after initialize: %+v", lines)
	}
}

// TestLongInputNotEchoed: an account name of 5 MB (and an argument's
// value or name, or a method, as long) is refused with its length, not
// sent back.
func TestLongInputNotEchoed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "portal.flow"), []byte("flow portal \"reads the portal\"\nparam account: credential \"Portal account\"\nparam n: int = 1\n\nopen \"https://portal.example.com/\"\nfill \"#u\" account.username\n"), 0o644)
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}, Passphrase: func(string, bool) ([]byte, error) { return []byte("test vault passphrase"), nil }})
	if err := st.Set("portal/admin", map[string]string{"username": "u"}, false); err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Options{FlowsDir: dir, Vault: st, Leases: lease.NewLocal(home)})
	big := strings.Repeat("x", 5<<20)
	call := func(id int, args map[string]any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": "workflow_portal", "arguments": args}})
		return string(b) + "\n"
	}
	lines := runStdio(t, s, stdioInit+call(11, map[string]any{"account": big})+call(12, map[string]any{"account": "portal/admin", "n": big})+
		call(13, map[string]any{"account": "portal/admin", big: 1})+`{"jsonrpc":"2.0","id":14,"method":"`+big+`"}`+"\n")
	for _, c := range []struct{ id, want string }{
		{"14", "Method not found: a text too long to show (5242880 bytes)"},
		{"11", "too long (5242880 bytes"},
		{"12", "a text too long to show (5242880 bytes)"},
		{"13", "an argument's name is too long (5242880 bytes)"},
	} {
		l := findID(lines, c.id)
		if l == nil {
			t.Fatalf("no answer to %s", c.id)
		}
		text := string(l.Result)
		if l.Error != nil {
			text += l.Error.Message
		}
		if len(text) > 4096 || !strings.Contains(text, c.want) {
			t.Errorf("call %s: %d bytes back, want %q: %.300s", c.id, len(text), c.want, text)
		}
	}
}
