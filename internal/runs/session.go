package runs

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
)

// sessionDigestRE matches what SessionDigest returns.
var sessionDigestRE = regexp.MustCompile(`^s-[0-9a-f]{12}$`)

// SessionDigest is how a run record names an MCP session: "s-" and the
// first 12 hex digits of the SHA-256 of the session ID. On Streamable HTTP
// the raw Mcp-Session-Id is what a client presents to act as that session
// (and profile ownership trusts it), so a run record, the store, the
// report and `rpa runs show` never hold the raw ID; the digest is stable,
// so the runs of one session still group together. "" stays ""; a value
// that already is a digest is returned unchanged (so masking twice, or
// masking a row on read, is harmless).
func SessionDigest(id string) string {
	if id == "" || sessionDigestRE.MatchString(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "s-" + hex.EncodeToString(sum[:])[:12]
}
