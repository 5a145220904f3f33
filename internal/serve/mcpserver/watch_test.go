package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const watchFlow = `flow watched "A flow added while serving"

param who: string = "world"

log "hello " + who
`

// waitChanged waits for one list_changed notification.
func waitChanged(t *testing.T, ev *events) {
	t.Helper()
	select {
	case <-ev.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 5s")
	}
}

func listNames(t *testing.T, s *Server) []string {
	t.Helper()
	return s.ToolNames()
}

// TestDynamicRegistration adds, changes, breaks, fixes and removes a flow
// file while a client is connected.
func TestDynamicRegistration(t *testing.T) {
	dir := copyFlows(t, "hit.flow")
	s, logs := newServer(t, Options{FlowsDir: dir})
	var hooks atomic.Int32
	s.OnToolsChanged(func() { hooks.Add(1) })
	cs, ev := connect(t, s)
	ctx := context.Background()
	path := filepath.Join(dir, "watched.flow")
	has := func(name string) bool {
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range lt.Tools {
			if tl.Name == name {
				return true
			}
		}
		return false
	}

	// Add.
	if err := os.WriteFile(path, []byte(watchFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, ev)
	if !has("workflow_watched") || !has("workflow_hit") {
		t.Fatalf("after add: %v", listNames(t, s))
	}
	// Change: the new description is served.
	if err := os.WriteFile(path, []byte(strings.Replace(watchFlow, "A flow added", "A flow changed", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, ev)
	if def, ok := s.Tool("workflow_watched"); !ok || !strings.HasPrefix(def.Description, "A flow changed") {
		t.Fatalf("after change: %+v", def)
	}
	// Break: the flow is dropped with its diagnostic logged; others stay.
	if err := os.WriteFile(path, []byte(strings.Replace(watchFlow, `log "hello "`, `clik "hello "`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, ev)
	if has("workflow_watched") || !has("workflow_hit") {
		t.Fatalf("after break: %v", listNames(t, s))
	}
	if l := logs.String(); !strings.Contains(l, "watched.flow:5:") || !strings.Contains(l, "does not load") {
		t.Errorf("diagnostic not logged:\n%s", l)
	}
	// Fix, then remove.
	if err := os.WriteFile(path, []byte(watchFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, ev)
	if !has("workflow_watched") {
		t.Fatal("fixed flow not served again")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, ev)
	if has("workflow_watched") {
		t.Fatal("removed flow still served")
	}
	if hooks.Load() < 5 {
		t.Errorf("OnToolsChanged called %d times, want >= 5", hooks.Load())
	}
	// An unrelated file does not change the list.
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	select {
	case <-ev.changed:
		t.Error("list_changed for a non-flow file")
	case <-time.After(300 * time.Millisecond):
	}
}

// TestDuplicateNamesNotServed: two files with one flow NAME serve neither.
func TestDuplicateNamesNotServed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.flow"), []byte(watchFlow), 0o644)
	os.WriteFile(filepath.Join(dir, "b.flow"), []byte(watchFlow), 0o644)
	s, logs := newServer(t, Options{FlowsDir: dir, NoWatch: true})
	if slices.Contains(s.ToolNames(), "workflow_watched") {
		t.Fatal("a duplicated name is served")
	}
	if !strings.Contains(logs.String(), "same flow name") {
		t.Error("duplicate not logged")
	}
	os.Remove(filepath.Join(dir, "b.flow"))
	if !s.Reload() || !slices.Contains(s.ToolNames(), "workflow_watched") {
		t.Fatal("flow not served after the duplicate went away")
	}
}

// TestSaveToListChanged checks that every save reaches a client as
// list_changed (waitChanged bounds each wait). The speed goal (< 300 ms) is
// BenchmarkSaveToListChanged's, not a timed test's: wall time on a shared
// machine says nothing about the code.
func TestSaveToListChanged(t *testing.T) {
	dir := t.TempDir()
	s, _ := newServer(t, Options{FlowsDir: dir})
	_, ev := connect(t, s)
	for i := range 5 {
		path := filepath.Join(dir, "watched.flow")
		src := strings.Replace(watchFlow, "A flow added", "Version "+string(rune('a'+i)), 1)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		waitChanged(t, ev)
	}
}

// BenchmarkSaveToListChanged is the time from a flow file written to the
// client receiving notifications/tools/list_changed (goal < 300 ms; the
// watcher's debounce is DefaultDebounce, 75 ms, of it).
func BenchmarkSaveToListChanged(b *testing.B) {
	dir := b.TempDir()
	s, _ := newServer(b, Options{FlowsDir: dir})
	_, ev := connect(b, s)
	path := filepath.Join(dir, "watched.flow")
	i := 0
	for b.Loop() {
		i++
		src := strings.Replace(watchFlow, "A flow added", fmt.Sprintf("Version %d", i), 1)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
		select {
		case <-ev.changed:
		case <-time.After(5 * time.Second):
			b.Fatal("no list_changed")
		}
	}
}

func TestCallToUnservedFlowWarned(t *testing.T) {
	// A call to a flow that is not in the folder is a check error of the
	// calling file (rpa check FILE reports it too), so the caller is not
	// served, never half-loaded, and the reason is logged.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "caller.flow"), []byte("flow caller\n\nr = call missing_one\nreturn r\n"), 0o644)
	s, logs := newServer(t, Options{FlowsDir: dir, NoWatch: true})
	if slices.Contains(s.ToolNames(), "workflow_caller") {
		t.Fatalf("caller served although its call target is missing: %v", s.ToolNames())
	}
	if !strings.Contains(logs.String(), "missing_one") {
		t.Errorf("the missing call target is not logged:\n%s", logs)
	}
}
