package schedule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScheduleAccountFillsCredential: a schedule's --account is the value
// of the flow's credential param its arguments leave out, resolved from
// the vault before any browser starts (an account the vault lacks fails
// the attempt, naming it).
func TestScheduleAccountFillsCredential(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv("RPA_VAULT_KEYRING", "off")
	t.Setenv("RPA_VAULT_PASSPHRASE", "schedule test passphrase")
	flow := filepath.Join(t.TempDir(), "acct.flow")
	if err := os.WriteFile(flow, []byte("flow acct \"uses an account\"\nparam account: credential\nopen \"about:blank\"\nlog account.password\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Def{Name: "acct", Flow: flow, FlowName: "acct", Account: "portal/nobody"}
	o := (&LocalRunner{}).Run(context.Background(), Job{Def: d})
	if !strings.Contains(o.Error, `no account "portal/nobody" in the vault`) {
		t.Errorf("outcome: %+v", o)
	}
}
