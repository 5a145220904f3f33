package importer_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceReplay replays the hand-written Chrome recordings with
// @puppeteer/replay (testdata/replay/replay.mjs) and compares what the
// pages saw with testdata/replay/*.events, the state TestReplay requires of
// the imported flows. It needs node and a node_modules holding
// @puppeteer/replay and puppeteer-core, named by RPA_REPLAY_NODE_MODULES
// (npm install with PUPPETEER_SKIP_DOWNLOAD=1; the browser is
// /usr/bin/chromium); without it the test is skipped.
func TestReferenceReplay(t *testing.T) {
	mods := os.Getenv("RPA_REPLAY_NODE_MODULES")
	if mods == "" {
		t.Skip("RPA_REPLAY_NODE_MODULES not set: the reference runner is not installed here")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	for _, name := range []string{"login-form", "keys-frames-popup"} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(node, "replay.mjs", filepath.Join("..", "chrome", name+".json"))
			cmd.Dir = filepath.Join("testdata", "replay")
			cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("replay.mjs: %v\n%s", err, out)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "replay", name+".events"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(string(out)) != strings.TrimSpace(string(want)) {
				t.Errorf("@puppeteer/replay left\n%s\nwant\n%s", out, want)
			}
		})
	}
}
