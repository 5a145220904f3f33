package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
)

// accountEnum is the enum offered for the account param of tool name.
func accountEnum(t *testing.T, cs *mcp.ClientSession, name string) []string {
	t.Helper()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != name {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var sch struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		json.Unmarshal(b, &sch)
		return sch.Properties["account"].Enum
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// TestAccountEnumFollowsVault: the account names offered for a credential
// param follow the vault as `rpa vault set|rm` change it, with the flows
// unchanged: the watcher sees the vault's folder, the tool is built again
// and the client is told (notifications/tools/list_changed). A served flow
// without a credential param is not rebuilt.
func TestAccountEnumFollowsVault(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "portal.flow"), []byte("flow portal \"reads the portal\"\nparam account: credential \"Portal account\"\n\nopen \"https://portal.example.com/\"\nfill \"#u\" account.username\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hello.flow"), []byte("flow hello \"says hello\"\n\nlog \"hi\"\n"), 0o644)
	// The vault's folder does not exist yet: the watcher waits for it.
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}, Passphrase: func(string, bool) ([]byte, error) { return []byte("test vault passphrase"), nil }})
	s, _ := newServer(t, Options{FlowsDir: dir, Vault: st, Leases: lease.NewLocal(home), Debounce: 20 * time.Millisecond})
	changed := make(chan struct{}, 16)
	ctx := context.Background()
	sst, cst := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := accountEnum(t, cs, "workflow_portal"); len(got) != 0 {
		t.Fatalf("enum with an empty vault: %v", got)
	}
	await := func(want []string) {
		t.Helper()
		deadline := time.After(time.Minute) // only catches a hang
		for {
			select {
			case <-changed:
				if got := accountEnum(t, cs, "workflow_portal"); slices.Equal(got, want) {
					return
				}
			case <-deadline:
				t.Fatalf("enum %v, want %v", accountEnum(t, cs, "workflow_portal"), want)
			}
		}
	}
	if err := st.Set("portal/admin", map[string]string{"username": "a", "password": "p"}, false); err != nil {
		t.Fatal(err)
	}
	await([]string{"portal/admin"})
	if err := st.Set("portal/ops", map[string]string{"username": "b", "password": "q"}, false); err != nil {
		t.Fatal(err)
	}
	// An account without the field the flow reads is not offered.
	if err := st.Set("mail/ops", map[string]string{"password": "r"}, false); err != nil {
		t.Fatal(err)
	}
	await([]string{"portal/admin", "portal/ops"})
	if err := st.Remove("portal/admin"); err != nil {
		t.Fatal(err)
	}
	await([]string{"portal/ops"})
	if !strings.Contains(strings.Join(s.ToolNames(), " "), "workflow_hello") {
		t.Fatalf("tools: %v", s.ToolNames())
	}
}
