package rod

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Download runs click, waits for the download it starts (also data: and
// blob: URLs) to finish, moves the file into dir under its suggested name
// (replacing a file of that name) and describes it.
func (p *page) Download(ctx context.Context, dir string, click func(context.Context) error) (*drivers.Download, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, core.Errorf(core.KindBrowser, "download: %v", err)
	}
	p.b.mu.Lock()
	mark := p.b.dlSeq
	p.b.mu.Unlock()
	if err := click(ctx); err != nil {
		return nil, err
	}
	var guid string
	var name string
	err := p.b.waitFor(ctx, func() bool {
		var best *dlState
		for _, d := range p.b.dls {
			if d.seq > mark && (best == nil || d.seq < best.seq) {
				best = d
			}
		}
		if best == nil {
			return false
		}
		guid, name = best.begin.GUID, best.begin.SuggestedFilename
		return true
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, &core.Error{Kind: core.KindTimeout, Msg: "download: no download started", Err: ctx.Err()}
		}
		return nil, err
	}
	var state proto.BrowserDownloadProgressState
	err = p.b.waitFor(ctx, func() bool {
		state = p.b.dls[guid].state
		return state != proto.BrowserDownloadProgressStateInProgress
	})
	if err != nil {
		if ctx.Err() != nil {
			_ = proto.BrowserCancelDownload{GUID: guid}.Call(p.b.rb)
			return nil, &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("download %q did not finish in time", name), Err: ctx.Err()}
		}
		return nil, err
	}
	p.b.mu.Lock()
	delete(p.b.dls, guid)
	p.b.mu.Unlock()
	if state != proto.BrowserDownloadProgressStateCompleted {
		return nil, core.Errorf(core.KindBrowser, "download %q was %s", name, state)
	}
	name = safeName(name)
	src := filepath.Join(p.b.dlDir, string(guid))
	dst := filepath.Join(dir, name)
	if err := moveFile(src, dst); err != nil {
		return nil, core.Errorf(core.KindBrowser, "download: %v", err)
	}
	return describeFile(dst, name)
}

// safeName keeps the base name of a suggested file name.
func safeName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	if name == "." || name == "/" || name == "" || name == ".." {
		name = "download"
	}
	return name
}

func moveFile(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Remove(src)
}

// describeFile computes size, sha256 and MIME type (by extension, else
// sniffed from the content) of a finished download.
func describeFile(path, name string) (*drivers.Download, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, core.Errorf(core.KindBrowser, "download: %v", err)
	}
	defer f.Close()
	h := sha256.New()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	h.Write(head[:n])
	rest, err := io.Copy(h, f)
	if err != nil {
		return nil, core.Errorf(core.KindBrowser, "download: %v", err)
	}
	mt := mime.TypeByExtension(filepath.Ext(name))
	if mt == "" {
		mt = http.DetectContentType(head[:n])
	}
	if i := strings.Index(mt, ";"); i >= 0 {
		mt = strings.TrimSpace(mt[:i])
	}
	return &drivers.Download{Path: path, Name: name, Size: int64(n) + rest, SHA256: hex.EncodeToString(h.Sum(nil)), MIME: mt}, nil
}
