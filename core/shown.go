package core

import (
	"fmt"
	"unicode/utf8"
)

// MaxShown bounds a caller's text (a URL, a value) shown inside a message,
// in bytes; the same bound as lang.MaxEcho (PROTOCOL.md: a caller's text
// over 200 bytes is named by its length, never sent back whole).
const MaxShown = 200

// Shown is s for a message: s itself up to MaxShown bytes, else its first
// 100 bytes (cut at a character boundary) and "… (N bytes)", so that a
// 3 MB argument is not copied into every error, result and run record.
func Shown(s string) string {
	if len(s) <= MaxShown {
		return s
	}
	cut := 100
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// MaxMessage bounds an error message of a step, in bytes (Message).
const MaxMessage = 2000

// Message is msg bounded for a result, a run record and a report: up to
// MaxMessage bytes as is, else its first 1000 bytes and "… (N bytes in
// all)". It is the last guard for a caller's text that a message quotes
// (an action's error quoting a long selector or value), behind Shown.
func Message(msg string) string {
	if len(msg) <= MaxMessage {
		return msg
	}
	cut := 1000
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", msg[:cut], len(msg))
}
