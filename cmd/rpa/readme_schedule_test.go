package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestDocsScheduleLines runs the `rpa schedule` examples of README.md and
// docs/schedules.md as written (from the repository's root, in a fresh
// $RPA_HOME): each command exits 0. A line "a | b | c" is the command a,
// then the same command with b, then with c. run-now queues the run for
// a scheduler that holds the lease (a run here would start a browser).
func TestDocsScheduleLines(t *testing.T) {
	for _, doc := range []string{"README.md", "docs/schedules.md"} {
		t.Run(doc, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("RPA_HOME", home)
			t.Chdir(filepath.Join("..", ".."))
			lines := shLines(t, doc, "rpa schedule add")
			if len(lines) == 0 {
				t.Fatalf("%s has no rpa schedule example", doc)
			}
			st, err := runs.Open(home, runs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if ok, _, _ := st.TakeLease("scheduler", runs.Me("tok", "rpa schedule daemon"), time.Now(), time.Hour); !ok {
				t.Fatal("no lease")
			}
			for _, l := range lines {
				if name, val, ok := strings.Cut(strings.TrimPrefix(l, "export "), "="); ok && strings.HasPrefix(l, "export ") {
					t.Setenv(name, val)
					continue
				}
				for _, args := range expand(t, l) {
					if code, out, errOut := capture(t, args...); code != 0 {
						t.Errorf("%s: rpa %s: exit %d\n%s%s", doc, strings.Join(args, " "), code, out, errOut)
					}
				}
			}
		})
	}
}

// shLines returns the commands of the ```sh blocks of doc that hold
// marker: continuation lines joined, comments and blank lines left out.
func shLines(t *testing.T, doc, marker string) []string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, block := range strings.Split(string(b), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if !strings.Contains(block, marker) {
			continue
		}
		block = strings.ReplaceAll(block, "\\\n", " ")
		for _, l := range strings.Split(block, "\n") {
			l, _, _ = strings.Cut(l, " #")
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
	}
	return out
}

// expand turns "rpa schedule pause meter | resume meter" into its
// commands' arguments (without "rpa"), quotes read as a shell does.
func expand(t *testing.T, l string) [][]string {
	t.Helper()
	parts := strings.Split(l, " | ")
	first := shellWords(t, parts[0])
	if len(first) < 2 || first[0] != "rpa" {
		t.Fatalf("not an rpa command: %q", l)
	}
	out := [][]string{first[1:]}
	for _, p := range parts[1:] {
		out = append(out, append([]string{first[1]}, shellWords(t, p)...))
	}
	return out
}

// shellWords splits s into words as a shell does for the examples: spaces
// separate, double quotes group.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var w strings.Builder
	in, word := false, false
	for _, r := range s {
		switch {
		case r == '"':
			in, word = !in, true
		case r == ' ' && !in:
			if word {
				out = append(out, w.String())
				w.Reset()
				word = false
			}
		default:
			w.WriteRune(r)
			word = true
		}
	}
	if in {
		t.Fatalf("unbalanced quotes: %q", s)
	}
	if word {
		out = append(out, w.String())
	}
	return out
}
