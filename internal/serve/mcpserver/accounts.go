package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/lang"
)

// Accounts (PROTOCOL.md, "Accounts"): a flow's credential param is offered
// as the account's NAME (the vault's matching names as its enum), a call's
// name is resolved to the account's fields before the run
// (vault.ResolveArgs: every field a secret of the run), the run holds each
// account's lease (one run per account at a time; -32004 "account_busy"
// naming the holder's run when it stays held past AccountWait), and runs on
// the account's own profile unless the caller or the flow names one.

// KindAccountBusy is data.kind of a call refused because another run
// holds its account for longer than the server waits.
const KindAccountBusy = "account_busy"

var accountDefaults struct {
	once   sync.Once
	vault  *vault.Store
	leases lease.Leaser
}

func (s *Server) vault() *vault.Store {
	if s.opts.Vault != nil {
		return s.opts.Vault
	}
	accountDefaults.once.Do(s.accountDefaults)
	return accountDefaults.vault
}

// vaultDir is the vault's folder (without opening the vault).
func (s *Server) vaultDir() string {
	if s.opts.Vault != nil {
		return s.opts.Vault.Dir
	}
	return filepath.Join(home.Dir(), vault.Dir)
}

func (s *Server) leases() lease.Leaser {
	if s.opts.Leases != nil {
		return s.opts.Leases
	}
	accountDefaults.once.Do(s.accountDefaults)
	return accountDefaults.leases
}

func (s *Server) accountDefaults() {
	accountDefaults.vault = vault.Default(home.Dir(), nil)
	accountDefaults.leases = lease.NewLocal(home.Dir())
}

// hasCredential reports whether f has a credential param.
func hasCredential(f *lang.Flow) bool {
	for _, p := range f.File.Params {
		if p.Type != nil && p.Type.Name == "credential" {
			return true
		}
	}
	return false
}

// credentialEnums adds to a tool's input schema the vault's names matching
// each credential param (the accounts with every field the flow reads).
func (s *Server) credentialEnums(f *lang.Flow, sch json.RawMessage) json.RawMessage {
	if !hasCredential(f) {
		return sch
	}
	var m map[string]any
	if json.Unmarshal(sch, &m) != nil {
		return sch
	}
	props, _ := m["properties"].(map[string]any)
	flows := s.reg.lookup
	if login, _ := f.Login(); login != "" && f.Path != "" {
		// The sign-in flow may not be in the registry yet while it loads.
		flows = lang.FolderFlows(filepath.Dir(f.Path))
	}
	for _, p := range f.File.Params {
		if p.Type == nil || p.Type.Name != "credential" {
			continue
		}
		names := s.vault().Matching(f.AccountFields(p.Name, flows))
		if pr, ok := props[p.Name].(map[string]any); ok && len(names) > 0 {
			pr["enum"] = names
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return sch
	}
	return out
}

// resolveAccounts resolves fc's credential arguments; the run's profile
// becomes the first account's when neither the caller nor the flow names
// one.
func (s *Server) resolveAccounts(e *flowEntry, fc *flowCall, callerProfile string) error {
	fc.named = fc.args
	if !hasCredential(e.flow) {
		return nil
	}
	resolved, accounts, err := vault.ResolveArgs(s.vault(), e.flow, fc.args, s.reg.lookup)
	if err != nil {
		var ae *lang.ArgError
		if errors.As(err, &ae) {
			return rpcError(CodeInvalidParams, "invalid "+ae.Error(), map[string]any{"field": ae.Field})
		}
		return rpcError(CodeInvalidParams, "invalid arguments: "+err.Error(), nil)
	}
	fc.args, fc.accounts = resolved, accounts
	if callerProfile == "" && e.profile == "" && fc.resume == nil && len(accounts) > 0 {
		fc.profile = vault.ProfileFor(accounts[0])
	}
	return nil
}

// accountWait is how long a call waits for an account (AccountWait: 0 is
// lease.DefaultWait, negative is 0, refused at once), and then for the
// account's profile when another rpa process holds it.
func (s *Server) accountWait() time.Duration {
	if s.opts.AccountWait == 0 {
		return lease.DefaultWait
	}
	return max(s.opts.AccountWait, 0)
}

// takeAccounts takes the leases of the call's accounts (lease.AcquireAll);
// an account held past AccountWait is -32004 "account_busy" naming the
// holder's run.
func (s *Server) takeAccounts(ctx context.Context, accounts []string) (release func(), note func(runID string), err error) {
	release, note, err = lease.AcquireAll(ctx, s.leases(), accounts, s.accountWait())
	var be *lease.BusyError
	switch {
	case err == nil:
		return release, note, nil
	case errors.As(err, &be):
		return nil, nil, rpcError(CodeBrowser, be.Error(), map[string]any{"kind": KindAccountBusy, "account": be.Account, "holder": be.Holder.RunID})
	case ctx.Err() != nil:
		return nil, nil, ctx.Err()
	}
	return nil, nil, rpcError(CodeBrowser, err.Error(), map[string]any{"kind": string(core.KindBusy)})
}
