package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Owner is who a run belongs to, and the one rule (Owns) for who may list
// it, read its resources (record, report, screenshots) and resume it
// (PROTOCOL.md, "Who sees a run"). Profiles follow the same identity: the
// MCP session, the bearer token it presented and the device of the link.
// Later features that hand out what a call produced (tasks) reuse it.
//
//   - The person at the desktop (the console, the CLI) sees every run.
//   - A run started over MCP belongs to the session that started it. While
//     that session lives, no other session owns it, whatever token it holds.
//   - Once that session has ended (closed, deleted, expired), its runs pass to
//     its caller: a later session presenting the same bearer token (and
//     device). Without a token nobody but the desktop sees them any more: a
//     session carries no other identity across reconnections.
//   - A run started over the desktop link (`rpa connect`) belongs to the
//     link's one caller, the gateway of that device, whatever link session
//     carried it (a re-dialled link is a new session); the gateway applies
//     this rule to its own agents.
//   - Runs of the CLI belong to the desktop alone.
type Owner struct {
	// Desktop is the person at the desktop: owns every run.
	Desktop bool `json:"-"`
	// Kind is the caller kind (CallerMCP, CallerLink, ...).
	Kind string `json:"kind,omitempty"`
	// Session is the SessionDigest of the MCP session ("" when none).
	Session string `json:"session,omitempty"`
	// Token is the TokenDigest of the bearer token the session presented
	// ("" when none).
	Token string `json:"token,omitempty"`
	// Device is the device id of the link the call came over ("" when none).
	Device string `json:"device,omitempty"`
}

// Desktop is the owner every run belongs to: the person at the desktop.
var Desktop = Owner{Desktop: true}

// OwnerOf is the owner of a run its caller c started.
func OwnerOf(c Caller) Owner {
	return Owner{Kind: c.Kind, Session: c.Session, Token: c.Token, Device: c.Device}
}

// Key is o as one string, the same for equal owners and different for
// different ones (a map key; who may resume a paused call, package mrtr).
func (o Owner) Key() string {
	if o.Desktop {
		return "desktop"
	}
	return strings.Join([]string{"caller", o.Kind, o.Session, o.Token, o.Device}, "\x00")
}

// Owns reports whether o may list, read and resume what by started.
// live reports whether an MCP session (by its SessionDigest) is still open
// in this process; nil means none is.
func (o Owner) Owns(by Owner, live func(session string) bool) bool {
	switch {
	case o.Desktop:
		return true
	case by.Desktop, o.Kind == "" || o.Kind != by.Kind || o.Kind == CallerCLI:
		return false
	case o.Device != by.Device:
		return false
	case o.Kind == CallerLink:
		// The link's one caller is its gateway; link sessions come and go.
		return o.Token == by.Token
	case o.Session != "" && o.Session == by.Session:
		return o.Token == by.Token
	}
	// Another session: only the same token's, once the owner's session ended.
	return o.Token != "" && o.Token == by.Token && (by.Session == "" || live == nil || !live(by.Session))
}

// TokenDigest is how a run record names the bearer token its caller
// presented: "t-" and the first 12 hex digits of the SHA-256 of the token,
// never the token. "" stays "".
func TokenDigest(token string) string {
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("rpa bearer token\x00" + token))
	return "t-" + hex.EncodeToString(sum[:])[:12]
}
