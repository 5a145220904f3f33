package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// entry is one file of an archive: its name inside the archive's top
// folder, where its content is, and its mode.
type entry struct {
	name, src string
	mode      os.FileMode
}

// archiveBase is the top folder and the file name (without extension) of
// t's portable archive: rpa_VERSION_OS_ARCH.
func (r *release) archiveBase(t target) string {
	return fmt.Sprintf("rpa_%s_%s_%s", r.v.FileVersion(), t.OS, t.Arch)
}

// tarGz writes the portable Linux archive of t: the binary, the man page,
// the systemd user units, the example connect.env and the documents.
func (r *release) tarGz(t target) (string, error) {
	base := r.archiveBase(t)
	name := base + ".tar.gz"
	files := []entry{
		{"rpa", r.bins[t], 0o755},
		{"README.md", r.docs.readme, 0o644},
		{"COPYRIGHT", r.docs.copyright, 0o644},
		{"LICENSE", r.docs.license, 0o644},
		{"THIRD_PARTY_LICENSES", r.docs.thirdParty, 0o644},
		{"rpa.1", r.docs.man, 0o644},
		{"rpa-connect.service", r.docs.unit, 0o644},
		{"rpa-schedule.service", r.docs.scheduleUnit, 0o644},
		{"connect.env.example", r.docs.connectEnv, 0o644},
	}
	files = append(files, r.guideEntries()...)
	return name, writeAtomic(filepath.Join(r.out, name), func(w io.Writer) error {
		return writeTarGz(w, base, files, r.v.Date)
	})
}

// zip writes the Windows archive of t.
func (r *release) zip(t target) (string, error) {
	base := r.archiveBase(t)
	name := base + ".zip"
	files := []entry{
		{"rpa.exe", r.bins[t], 0o755},
		{"README.md", r.docs.readme, 0o644},
		{"COPYRIGHT.txt", r.docs.copyright, 0o644},
		{"LICENSE.txt", r.docs.license, 0o644},
		{"THIRD_PARTY_LICENSES.txt", r.docs.thirdParty, 0o644},
	}
	files = append(files, r.guideEntries()...)
	return name, writeAtomic(filepath.Join(r.out, name), func(w io.Writer) error {
		return writeZip(w, base, files, r.v.Date)
	})
}

// guideEntries are what README.md links to, as archive entries at their
// repository paths (docs/..., flows/...).
func (r *release) guideEntries() []entry {
	var out []entry
	for _, f := range r.docs.guide {
		out = append(out, entry{f.rel, f.src, 0o644})
	}
	return out
}

// writeTarGz writes files under top/ with owner root, the given modes and
// mtime, in the given order; the gzip header carries mtime and no name, so
// equal inputs give equal bytes.
func writeTarGz(w io.Writer, top string, files []entry, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.ModTime = mtime
	tw := tar.NewWriter(zw)
	hdr := func(name string, mode os.FileMode, size int64, typ byte) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: int64(mode.Perm()), Size: size, ModTime: mtime,
			Uname: "root", Gname: "root", Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr(top+"/", 0o755, 0, tar.TypeDir)); err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f.src)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(hdr(top+"/"+f.name, f.mode, int64(len(b)), tar.TypeReg)); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// writeZip writes files under top/ (deflated, fixed mtime and modes).
func writeZip(w io.Writer, top string, files []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		b, err := os.ReadFile(f.src)
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: top + "/" + f.name, Method: zip.Deflate, Modified: mtime.UTC()}
		h.SetMode(f.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(b); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeAtomic writes a file through fill into a temp file next to name,
// then renames it into place; on error nothing is left behind.
func writeAtomic(name string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-")
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
