package core

import (
	"fmt"
	"strconv"
	"strings"
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

// IsCut reports whether s is a text Message cut: at most 1000 bytes and
// "… (N bytes in all)" with N over MaxMessage. A run record keeps long
// arguments so (record.maxArgText); what reuses them (the console's "Run
// again") must not pass the cut text on as the argument.
func IsCut(s string) bool {
	const tail = " bytes in all)"
	if !strings.HasSuffix(s, tail) {
		return false
	}
	head := strings.TrimSuffix(s, tail)
	i := strings.LastIndex(head, "… (")
	if i < 0 || i > 1000 {
		return false
	}
	n, err := strconv.Atoi(head[i+len("… ("):])
	return err == nil && n > MaxMessage
}
