package lang

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

func TestFlowFilesAndFindFlow(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"b.flow":    "flow beta\nlog 1\n",
		"a.yaml":    "flow: alpha\nsteps:\n  - log: 1\n",
		".hid.flow": "flow hidden\nlog 1\n",
		"notes.txt": "x",
		"bad.flow":  "flow broken\nclik \"#a\"\n", // parses, does not check
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub.flow"), 0o755)
	got, err := FlowFiles(dir)
	want := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.flow"), filepath.Join(dir, "bad.flow")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("FlowFiles = %v %v, want %v", got, err, want)
	}
	for name, want := range map[string]string{"beta": "b.flow", "broken": "bad.flow", "alpha": "a.yaml"} {
		if p, err := FindFlow(dir, name); err != nil || p != filepath.Join(dir, want) {
			t.Errorf("FindFlow(%s) = %q %v", name, p, err)
		}
	}
	if _, err := FindFlow(dir, "hidden"); err != ErrNoFlow {
		t.Errorf("FindFlow(hidden) = %v", err)
	}
	if _, err := FlowFiles(filepath.Join(dir, "nope")); err == nil {
		t.Error("FlowFiles of a missing folder")
	}
}

func TestSetHeader(t *testing.T) {
	for _, c := range []struct{ src, name, desc, want string }{
		{"flow a \"old\"\nlog 1\n", "b", "", "flow b \"old\"\nlog 1\n"},
		{"flow a \"old\" # note\nlog 1\n", "", "new \"one\"", "flow a \"new \\\"one\\\"\"\nlog 1\n"},
		{"# head\nflow a # note\nlog 1\n", "c", "d", "# head\nflow c \"d\" # note\nlog 1\n"},
		{"flow a", "b", "", "flow b"},
	} {
		f, ds := Parse("x.flow", []byte(c.src))
		if f == nil || ds.HasErrors() {
			t.Fatalf("%q: %v", c.src, ds)
		}
		if got := string(SetHeader([]byte(c.src), f, c.name, c.desc)); got != c.want {
			t.Errorf("SetHeader(%q, %q, %q) = %q, want %q", c.src, c.name, c.desc, got, c.want)
		}
	}
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a.flow":    {Data: []byte("flow a\ncall b with: { \"n\": 1 }\n")},
		"b.flow":    {Data: []byte("flow b\nparam n: int\nlog n\n")},
		"c.flow":    {Data: []byte("flow c\ncall b with: { \"m\": 1 }\n")},
		"notes.md":  {Data: []byte("x")},
		".hid.flow": {Data: []byte("flow hid\n")},
	}
	flows, ds := LoadFS(fsys)
	if got := Names(flows); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("flows %v", got)
	}
	if len(ds) != 2 || ds[0].Subject.File != "c.flow" || ds[1].Subject.File != "c.flow" {
		t.Errorf("diagnostics %v", ds)
	}
}
