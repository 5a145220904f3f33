package ui

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openFlow opens a page of site and returns its title.
func openFlow(site string) string {
	return "flow opens \"Opens the test page\"\n\nparam base_url: string = \"" + site + "\"\n\nopen \"{{ base_url }}/\"\n"
}

func helloSite(t *testing.T) *httptest.Server {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><title>hello</title><p>hello</p>"))
	}))
	t.Cleanup(site.Close)
	return site
}

// TestConsoleRunsOnAgentsProfile: after an agent's MCP session used profile "default", a run
// from the console on that profile runs (the console's session is the desktop's and shares
// every profile), and the agent keeps its profile: another agent is still refused.
func TestConsoleRunsOnAgentsProfile(t *testing.T) {
	site := helloSite(t)
	c := newConsole(t, map[string]string{"opens.flow": openFlow(site.URL)})
	ctx := step(t)
	agent := func() *mcp.ClientSession {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := c.srv.MCP().Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	a := agent()
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_opens", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("the agent's call: %v %+v", err, res)
	}
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/run/opens?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Run")
	waitText(t, pg, "Run ok in")
	// The profile is still the first agent's: a second agent is refused it.
	b := agent()
	_, err = b.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_opens", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "in use by another MCP session") {
		t.Errorf("a second agent on the first agent's profile: %v", err)
	}
}

// TestConsoleRunProfileHeldByProcess: a run whose profile another rpa process holds says so in
// words for the person (pick another profile, or stop that process on the Status page).
func TestConsoleRunProfileHeldByProcess(t *testing.T) {
	site := helloSite(t)
	c := newConsole(t, map[string]string{"opens.flow": openFlow(site.URL)})
	work := filepath.Join(c.home, "profiles", "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command(os.Args[0], "-test.run=^TestUIBLockHelperProcess$")
	holder.Env = append(os.Environ(), "RPA_UIB_LOCK="+work, "RPA_HOME="+c.home)
	stdin, _ := holder.StdinPipe()
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); holder.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); strings.TrimSpace(line) != "LOCKED" {
		t.Fatalf("helper: %q", line)
	}
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/run/opens?t="+c.ui.Token()+"&profile=work"); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Run")
	waitText(t, pg, "The run could not start:")
	waitText(t, pg, `The browser profile "work" is being used by another program (rpa (pid`)
	waitText(t, pg, "Pick another profile in the Profile picker of the Run form, or stop that program on the Status page.")
	el(t, pg, "link", "Status")
	body, _ := pg.Text(step(t))
	if strings.Contains(body, "not run in") {
		t.Errorf("the page still says the run was not run in N ms:\n%s", body)
	}
}
