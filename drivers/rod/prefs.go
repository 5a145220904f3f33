package rod

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SilentPrefs are the profile preferences set in a launched browser's
// profile (Default/Preferences of its user-data dir) before it starts,
// dotted name → value: Chromium's autocomplete of what is typed into form
// fields and its address and card autofill off (autocomplete follows
// autofill.profile_enabled; otherwise Web Data keeps every value typed
// into a submitted form's text field, a secret param or a credential's
// username included), and its password manager off (Login Data). rpa fills
// forms itself; this keeps typed values off the disk while the browser
// runs, on top of the scrub of a profile after its browser closed.
var SilentPrefs = map[string]any{
	"autofill.profile_enabled":     false,
	"autofill.credit_card_enabled": false,
	"credentials_enable_service":   false,
}

// presetPrefs sets SilentPrefs in dir's Default/Preferences (created when
// missing) while no browser runs on dir, keeping every other preference.
// A file that is not a JSON object is left alone (Chromium repairs or
// replaces it), as is one that already holds SilentPrefs; it is rewritten
// through a temp file and a rename.
func presetPrefs(dir string) error {
	path := filepath.Join(dir, "Default", "Preferences")
	prefs := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // keep big integers as written
		if dec.Decode(&prefs) != nil || prefs == nil {
			return nil
		}
	}
	changed := false
	for name, v := range SilentPrefs {
		keys := strings.Split(name, ".")
		m := prefs
		for _, k := range keys[:len(keys)-1] {
			sub, ok := m[k].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[k] = sub
			}
			m = sub
		}
		last := keys[len(keys)-1]
		if cur, ok := m[last]; !ok || cur != v {
			m[last] = v
			changed = true
		}
	}
	if !changed {
		return nil
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(prefs); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".rpa-tmp"
	if err := os.WriteFile(tmp, bytes.TrimSuffix(out.Bytes(), []byte("\n")), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
