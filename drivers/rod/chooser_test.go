package rod_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// TestUploadThroughChooser: SetFiles on the control that opens the file
// chooser (a dropzone whose click calls input.click() on a hidden input)
// clicks it and answers the intercepted chooser (shared case 09); an
// element that opens no chooser is an error naming it.
func TestUploadThroughChooser(t *testing.T) {
	p := open(t, "upload.html")
	ctx := tctx(t, 15*time.Second)
	path := filepath.Join(t.TempDir(), "notes.csv")
	if err := os.WriteFile(path, []byte("x\ny\nz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitState(ctx, []string{"#dropzone[data-ready=true]"}, drivers.StateAttached); err != nil {
		t.Fatal(err)
	}
	if err := locate(t, p, drivers.ForRead, "#dropzone").SetFiles(ctx, []string{path}); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "uploaded:notes.csv:6:3")
	err := locate(t, p, drivers.ForRead, "#result").SetFiles(ctx, []string{path})
	if err == nil || !strings.Contains(err.Error(), "div#result is not a file input") {
		t.Fatalf("SetFiles on a plain div: %v", err)
	}
	// after a click that opened no chooser, the dropzone still works
	if err := locate(t, p, drivers.ForRead, "#dropzone").SetFiles(ctx, []string{path}); err != nil {
		t.Fatal(err)
	}
}
