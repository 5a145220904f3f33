package lang

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPublish(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "served")
	good := []byte("flow hello \"Say hello\"\n\nlog \"hi\"\n")
	dest := filepath.Join(dir, "hello.flow")
	if err := Publish(dest, good); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dest); string(b) != string(good) {
		t.Fatalf("wrote %q", b)
	}
	if st, _ := os.Stat(dest); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	// Over itself: fine.
	if err := Publish(dest, []byte("flow hello \"Say hello again\"\n\nlog \"hi\"\n")); err != nil {
		t.Fatal(err)
	}
	// Another file declaring NAME: refused, nothing written.
	other := filepath.Join(dir, "other.flow")
	var pe *PublishError
	if err := Publish(other, good); !errors.As(err, &pe) || pe.Clash != dest {
		t.Fatalf("clash: %v", err)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a refused flow was written")
	}
	// A broken flow: refused with its diagnostics.
	err := Publish(filepath.Join(dir, "bad.flow"), []byte("flow bad\n\nclik \"#x\"\n"))
	if !errors.As(err, &pe) || len(pe.Diags) == 0 || !strings.Contains(pe.Diags[0].Summary, "clik") {
		t.Fatalf("broken: %v", err)
	}
	// A flow that a caller of the folder needs: changing its params breaks the caller.
	if err := Publish(filepath.Join(dir, "caller.flow"), []byte("flow caller\n\ncall hello\n")); err != nil {
		t.Fatal(err)
	}
	err = Publish(dest, []byte("flow hello\n\nparam who: string\n\nlog who\n"))
	if !errors.As(err, &pe) || len(pe.Broken) != 1 || pe.Broken[0] != "caller" {
		t.Fatalf("breaking a caller: %v", err)
	}
}
