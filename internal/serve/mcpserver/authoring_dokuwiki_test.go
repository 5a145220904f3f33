package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/lang"
)

// Debian's DokuWiki (flows/thirdparty/serve-dokuwiki.sh installs it; so
// does .ci/run).
const (
	dokuRoot  = "/usr/share/dokuwiki"
	dokuData  = "/var/lib/dokuwiki/data"
	dokuUsers = "/var/lib/dokuwiki/acl/users.auth.php"
	dokuUser  = "rpa"
	dokuPass  = "rpa-pass-42"
)

// dokuwiki serves Debian's DokuWiki with PHP's built-in server on a free
// loopback port (stopped at cleanup), after adding the wiki user rpa if it
// is missing (as serve-dokuwiki.sh does). Without DokuWiki or php the test
// is skipped, except under CI (CI set), where it fails.
func dokuwiki(t *testing.T) string {
	t.Helper()
	php, err := exec.LookPath("php")
	if _, serr := os.Stat(filepath.Join(dokuRoot, "doku.php")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("DokuWiki is not installed (php: %v, doku.php: %v); .ci/run installs it", err, serr)
		}
		t.Skip("DokuWiki is not installed (sh flows/thirdparty/serve-dokuwiki.sh installs it)")
	}
	users, err := os.ReadFile(dokuUsers)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(users, []byte("\n"+dokuUser+":")) && !bytes.HasPrefix(users, []byte(dokuUser+":")) {
		hash, err := exec.Command(php, "-r", `echo password_hash("`+dokuPass+`", PASSWORD_BCRYPT);`).Output()
		if err != nil {
			t.Fatalf("hashing the wiki password: %v", err)
		}
		f, err := os.OpenFile(dokuUsers, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprintf(f, "%s:%s:RPA Tester:rpa@localhost:admin,user\n", dokuUser, hash)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(php, "-S", addr, "-t", dokuRoot)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			o := out.String() // its errors are at the end
			t.Logf("php -S (end):\n%s", o[max(0, len(o)-3000):])
		}
	})
	base := "http://" + addr
	for i := 0; ; i++ { // only bounds a hang
		resp, err := http.Get(base + "/doku.php")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if i == 300 {
			t.Fatalf("DokuWiki did not answer on %s: %v", base, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAuthoringDokuWiki: a scripted agent logs in to a real DokuWiki,
// marks the password as a secret, writes a page whose text (its heading)
// is a param, reads the heading back with as and saves the flow. The flow
// checks clean, has `password: secret` with no value in the file, and run
// on a fresh profile with another heading it creates the page again and
// returns that heading.
func TestAuthoringDokuWiki(t *testing.T) {
	base := dokuwiki(t)
	ns := fmt.Sprintf("rpa_test_%d", time.Now().UnixNano())
	page := ns + ":agent_page"
	pageFile := filepath.Join(dokuData, "pages", ns, "agent_page.txt")
	t.Cleanup(func() {
		for _, d := range []string{"pages", "meta", "attic"} {
			os.RemoveAll(filepath.Join(dokuData, d, ns))
		}
	})
	dir := t.TempDir()
	s, logs := newServer(t, Options{FlowsDir: dir, Pool: newPool(t)})
	s.EnableAuthoring()
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}

	a.call(ToolBrowserOpen, map[string]any{"url": base + "/doku.php?id=start&do=login"})
	snap, _ := a.call(ToolBrowserSnapshot, map[string]any{})
	a.call(ToolBrowserFill, map[string]any{"ref": a.ref(snap, `textbox "Username`), "value": dokuUser, "param": "username"})
	out, _ := a.call(ToolBrowserFill, map[string]any{"ref": a.ref(snap, `textbox "Password`), "value": dokuPass, "secret": true, "param": "password"})
	if strings.Contains(out, dokuPass) {
		t.Fatalf("the secret came back:\n%s", out)
	}
	a.call(ToolBrowserClick, map[string]any{"ref": a.ref(snap, `button "Log In`)})
	a.call(ToolBrowserWait, map[string]any{"text": "Logged in as"})

	a.call(ToolBrowserOpen, map[string]any{"url": base + "/doku.php?id=" + page + "&do=edit"})
	snap, _ = a.call(ToolBrowserSnapshot, map[string]any{})
	a.call(ToolBrowserFill, map[string]any{"ref": a.ref(snap, `form \[ref=e\d+\]:\n\s*- textbox`), "value": "====== Written by an agent ======", "param": "text"})
	a.call(ToolBrowserClick, map[string]any{"ref": a.ref(snap, `button "Save`)})
	a.call(ToolBrowserWait, map[string]any{"text": "Last modified"}) // the page's footer, whatever its text
	out, _ = a.call(ToolBrowserRead, map[string]any{"action": "text", "selector": ".page h1", "as": "heading"})
	if !strings.Contains(out, "Written by an agent") {
		t.Fatalf("read the heading:\n%s", out)
	}
	out, _ = a.call(ToolFlowSave, map[string]any{"name": "wiki_page", "description": "Log in to DokuWiki and write a page",
		"params": []any{map[string]any{"name": "text", "description": "Wiki text of the page (its first line the heading)"}}})
	if !strings.Contains(out, "workflow_wiki_page") {
		t.Fatalf("save:\n%s", out)
	}
	path := filepath.Join(dir, "wiki_page.flow")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ds := lang.LoadFile(path); len(ds) > 0 {
		t.Errorf("the saved flow has diagnostics: %v\n%s", ds, text)
	}
	for _, want := range []string{"param password: secret", "param text: string", "heading = text", `return { "heading": heading }`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("flow lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), dokuPass) || strings.Contains(logs.String(), dokuPass) {
		t.Fatalf("the password reached the file or the log:\n%s", text)
	}
	if _, err := os.Stat(pageFile); err != nil {
		t.Fatalf("the session wrote no page: %v", err)
	}
	// the replay creates the page anew
	if err := os.Remove(pageFile); err != nil {
		t.Fatal(err)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_wiki_page", Arguments: map[string]any{
		"password": dokuPass, "text": "====== Replayed on a fresh profile ======", "profileId": "fresh"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"outputs":{"heading":"Replayed on a fresh profile"}`) {
		t.Fatalf("replay: %s\n%s", raw, text)
	}
	if b, err := os.ReadFile(pageFile); err != nil || !strings.Contains(string(b), "Replayed on a fresh profile") {
		t.Fatalf("the replay did not create the page: %v %q", err, b)
	}
	if strings.Contains(logs.String(), dokuPass) {
		t.Fatal("the password reached the log")
	}
}
