package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestKindOf(t *testing.T) {
	wrapped := fmt.Errorf("outer: %w", Errorf(KindCovered, "covered by div#x"))
	for _, tc := range []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, ""},
		{"typed", Errorf(KindNotFound, "no element"), KindNotFound},
		{"wrapped", wrapped, KindCovered},
		{"outermost wins", &Error{Kind: KindHITLDeclined, Err: Errorf(KindBrowser, "gone")}, KindHITLDeclined},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), KindTimeout},
		{"other", errors.New("boom"), KindBrowser},
		{"canceled is not special here", context.Canceled, KindBrowser},
	} {
		if got := KindOf(tc.err); got != tc.want {
			t.Errorf("%s: KindOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestIsFinal(t *testing.T) {
	if !IsFinal(Errorf(KindExpression, "bad")) || !IsFinal(&Error{Kind: KindNotFound, Final: true}) {
		t.Error("expression and Final errors are final")
	}
	if IsFinal(Errorf(KindNotFound, "x")) || IsFinal(errors.New("x")) || IsFinal(nil) {
		t.Error("other errors are retried")
	}
}

func TestErrorUnwrap(t *testing.T) {
	cause := errors.New("cause")
	e := &Error{Kind: KindBrowser, Msg: "m", Err: cause}
	if e.Error() != "m" || !errors.Is(e, cause) {
		t.Errorf("Error/Unwrap: %q %v", e.Error(), errors.Unwrap(e))
	}
}

// The kinds of a run's result listed in LANGUAGE.md ("Result of a run")
// are exactly core's kinds, less busy (which no flow reports: the MCP
// layer's limits do).
func TestKindsMatchSpec(t *testing.T) {
	src, err := os.ReadFile("../docs/spec/LANGUAGE.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i := strings.Index(text, "KIND is one of")
	if i < 0 {
		t.Fatal(`LANGUAGE.md has no "KIND is one of" sentence`)
	}
	end := strings.Index(text[i:], ";")
	var doc []Kind
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(text[i:i+end], -1) {
		doc = append(doc, Kind(m[1]))
	}
	var code []Kind
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		if seen[k] {
			t.Errorf("kind %q listed twice", k)
		}
		seen[k] = true
		if k != KindBusy {
			code = append(code, k)
		}
	}
	slices.Sort(doc)
	slices.Sort(code)
	if !slices.Equal(doc, code) {
		t.Errorf("LANGUAGE.md lists %v, core declares %v", doc, code)
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled context = %v", err)
	}
}
