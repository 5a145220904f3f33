package rod

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
)

// namedKeys maps key names (KeyboardEvent.key spelling, case-insensitive)
// to rod's US-layout keys.
var namedKeys = map[string]input.Key{
	"enter": input.Enter, "return": input.Enter, "tab": input.Tab, "escape": input.Escape, "esc": input.Escape,
	"backspace": input.Backspace, "delete": input.Delete, "del": input.Delete, "insert": input.Insert,
	"space": input.Space, "home": input.Home, "end": input.End, "pageup": input.PageUp, "pagedown": input.PageDown,
	"arrowup": input.ArrowUp, "arrowdown": input.ArrowDown, "arrowleft": input.ArrowLeft, "arrowright": input.ArrowRight,
	"up": input.ArrowUp, "down": input.ArrowDown, "left": input.ArrowLeft, "right": input.ArrowRight,
	"shift": input.ShiftLeft, "control": input.ControlLeft, "ctrl": input.ControlLeft, "alt": input.AltLeft,
	"meta": input.MetaLeft, "cmd": input.MetaLeft, "command": input.MetaLeft, "capslock": input.CapsLock,
	"contextmenu": input.ContextMenu,
	"f1":          input.F1, "f2": input.F2, "f3": input.F3, "f4": input.F4, "f5": input.F5, "f6": input.F6,
	"f7": input.F7, "f8": input.F8, "f9": input.F9, "f10": input.F10, "f11": input.F11, "f12": input.F12,
}

// keyForRune returns the US-layout key that types r, if any.
func keyForRune(r rune) (k input.Key, ok bool) {
	switch r {
	case '\n':
		return input.Enter, true
	case '\r':
		return input.Enter, true
	case '\t':
		return input.Tab, true
	}
	if r < 0x20 || r > 0x7e {
		return 0, false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	k = input.Key(r)
	_ = k.Info() // panics for undefined keys
	return k, true
}

// ParseChord parses "Enter", "a", "Control+A", "Shift+Tab" into modifier
// keys and the main key. Names are KeyboardEvent.key spellings
// (case-insensitive for named keys); a single printable ASCII character is
// that key.
func ParseChord(chord string) (mods []input.Key, key input.Key, err error) {
	if chord == "" {
		return nil, 0, fmt.Errorf("empty key")
	}
	parts := []string{chord}
	if chord != "+" && strings.Contains(chord, "+") {
		parts = strings.Split(chord, "+")
		if strings.HasSuffix(chord, "++") { // "Control++"
			parts = append(strings.Split(strings.TrimSuffix(chord, "++"), "+"), "+")
		}
	}
	for i, part := range parts {
		p := strings.TrimSpace(part)
		if p == "" && part == " " {
			p = " "
		}
		var k input.Key
		if nk, ok := namedKeys[strings.ToLower(p)]; ok {
			k = nk
		} else if r := []rune(p); len(r) == 1 {
			c := r[0]
			if i < len(parts)-1 || len(parts) > 1 && !hasShift(parts[:len(parts)-1]) {
				// "Control+A" is the A key without Shift: key "a"
				c = unicode.ToLower(c)
			}
			kk, ok := keyForRune(c)
			if !ok {
				return nil, 0, fmt.Errorf("no key for %q in %q", p, chord)
			}
			k = kk
		} else {
			return nil, 0, fmt.Errorf("unknown key %q in %q", p, chord)
		}
		if i < len(parts)-1 {
			if k.Modifier() == 0 {
				return nil, 0, fmt.Errorf("%q is not a modifier in %q (Control, Shift, Alt, Meta)", p, chord)
			}
			mods = append(mods, k)
			continue
		}
		key = k
	}
	return mods, key, nil
}

func hasShift(mods []string) bool {
	for _, m := range mods {
		if strings.EqualFold(strings.TrimSpace(m), "shift") {
			return true
		}
	}
	return false
}

// Press sends a key or chord to the focused element.
func (p *page) Press(ctx context.Context, chord string) error {
	mods, key, err := ParseChord(chord)
	if err != nil {
		return core.Errorf(core.KindBrowser, "press: %v", err)
	}
	// the chord's key events go in one round trip (page.input)
	var evs []proto.Request
	m := 0
	for _, k := range mods {
		m |= k.Modifier()
		evs = append(evs, k.Encode(proto.InputDispatchKeyEventTypeKeyDown, m))
	}
	// With Control/Alt/Meta held, a printable key inserts no text; the
	// browser maps the chord to its editing command (Control+A selects all).
	down := key.Encode(proto.InputDispatchKeyEventTypeKeyDown, m)
	if m&(input.ModifierControl|input.ModifierAlt|input.ModifierMeta) != 0 {
		down.Text, down.UnmodifiedText = "", ""
		down.Type = proto.InputDispatchKeyEventTypeRawKeyDown
		if cmd := editCommand(m, key); cmd != "" {
			down.Commands = []string{cmd}
		}
	}
	evs = append(evs, down, key.Encode(proto.InputDispatchKeyEventTypeKeyUp, m))
	for i := len(mods) - 1; i >= 0; i-- {
		m &^= mods[i].Modifier()
		evs = append(evs, mods[i].Encode(proto.InputDispatchKeyEventTypeKeyUp, m))
	}
	if err := p.input(ctx, evs...); err != nil {
		return wrapErr(ctx, "press "+chord, err)
	}
	return nil
}

// editCommand names the editing command of common Control chords (headless
// Chromium does not map them itself).
func editCommand(mods int, key input.Key) string {
	if mods != input.ModifierControl && mods != input.ModifierMeta {
		return ""
	}
	switch key {
	case input.KeyA:
		return "selectAll"
	case input.KeyC:
		return "copy"
	case input.KeyX:
		return "cut"
	case input.KeyV:
		return "paste"
	case input.KeyZ:
		return "undo"
	case input.KeyY:
		return "redo"
	}
	return ""
}

// typeKey presses and releases one key with no modifiers.
func typeKey(ctx context.Context, p *page, k input.Key) error {
	rp := p.rp.Context(ctx)
	if err := k.Encode(proto.InputDispatchKeyEventTypeKeyDown, 0).Call(rp); err != nil {
		return err
	}
	return k.Encode(proto.InputDispatchKeyEventTypeKeyUp, 0).Call(rp)
}
