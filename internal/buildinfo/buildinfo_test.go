package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFill(t *testing.T) {
	bi := &debug.BuildInfo{
		Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-01T10:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	tests := []struct {
		name string
		in   Info
		want Info
	}{
		{"nothing stamped: toolchain values", Info{},
			Info{Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z", Modified: true}},
		{"stamped values win", Info{Version: "v1.2.3", Commit: "abc", Date: "2026-01-01T00:00:00Z"},
			Info{Version: "v1.2.3", Commit: "abc", Date: "2026-01-01T00:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			fill(&got, bi)
			if got != tt.want {
				t.Errorf("fill = %+v, want %+v", got, tt.want)
			}
		})
	}
	// A module version from `go install module@v1.0.0` is used when nothing is stamped.
	var got Info
	fill(&got, &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}})
	if got.Version != "v1.0.0" {
		t.Errorf("module version: got %q", got.Version)
	}
}

func TestString(t *testing.T) {
	in := Info{Version: "v0.3.0-4-gabc1234", Commit: "abc1234def5678901234", Date: "2026-12-01T10:00:00Z", GoVersion: "go1.26.8", OS: "linux", Arch: "arm64"}
	if got, want := in.String(), "rpa v0.3.0-4-gabc1234 (abc1234def56, 2026-12-01T10:00:00Z) go1.26.8 linux/arm64"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	in = Info{Version: "dev", GoVersion: "go1.26.8", OS: "windows", Arch: "amd64"}
	if got, want := in.String(), "rpa dev go1.26.8 windows/amd64"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestGet(t *testing.T) {
	in := Get()
	if in.Version == "" || in.GoVersion != runtime.Version() || in.OS != runtime.GOOS || in.Arch != runtime.GOARCH {
		t.Errorf("Get = %+v", in)
	}
}
