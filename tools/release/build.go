package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// release is one run of the release build.
type release struct {
	root       string // repository root
	out        string // artifacts folder
	v          version
	targets    []target
	maintainer string

	stage     string            // scratch folder under out, removed at the end
	bins      map[target]string // built binaries
	docs      docFiles
	artifacts []string // file names in out
}

// docFiles are the files every artifact ships next to the binary; guide
// lists what README.md links to (guideFiles), by path from the
// repository's root.
type docFiles struct {
	readme, license, copyright, thirdParty, man, unit, scheduleUnit, connectEnv string
	guide                                                                       []docFile
}

// docFile is one file README.md links to: its path from the repository's
// root (slashes) and where it is read from.
type docFile struct {
	rel, src string
}

const buildinfoPkg = "github.com/rpa-dev/rpa/internal/buildinfo"

func (r *release) build() error {
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	if err := cleanArtifacts(r.out); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(r.out, ".stage-")
	if err != nil {
		return err
	}
	r.stage = stage
	defer os.RemoveAll(stage)

	r.bins = map[target]string{}
	for _, t := range r.targets {
		bin, err := r.goBuild(t)
		if err != nil {
			return err
		}
		r.bins[t] = bin
	}
	if err := r.writeDocs(); err != nil {
		return err
	}
	for _, t := range r.targets {
		kinds := []string{"tar.gz", "deb", "rpm"}
		if t.OS == "windows" {
			kinds = []string{"zip"}
		}
		for _, k := range kinds {
			start := time.Now()
			var name string
			var err error
			switch k {
			case "zip":
				name, err = r.zip(t)
			case "tar.gz":
				name, err = r.tarGz(t)
			default:
				name, err = r.pkg(t, k)
			}
			if err := r.add(start, name, err); err != nil {
				return err
			}
		}
	}
	return r.checksums()
}

// add records an artifact and prints its size and the time since start.
func (r *release) add(start time.Time, name string, err error) error {
	if err != nil {
		return err
	}
	st, err := os.Stat(filepath.Join(r.out, name))
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release: %-50s %6.2f MB (%s)\n", name, float64(st.Size())/1e6, time.Since(start).Round(100*time.Millisecond))
	r.artifacts = append(r.artifacts, name)
	return nil
}

// cleanArtifacts removes what an earlier run left in out (only our kinds
// of files, so a mistaken --out loses nothing else).
func cleanArtifacts(out string) error {
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		ours := n == "SHA256SUMS" || strings.HasPrefix(n, ".stage-") ||
			(strings.HasPrefix(n, "rpa") && (strings.HasSuffix(n, ".deb") || strings.HasSuffix(n, ".rpm") ||
				strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".zip")))
		if ours {
			if err := os.RemoveAll(filepath.Join(out, n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// goBuild builds ./cmd/rpa for t (CGO_ENABLED=0, -trimpath, stripped,
// version stamped) into the stage and returns the binary's path.
func (r *release) goBuild(t target) (string, error) {
	dir := filepath.Join(r.stage, "bin", t.OS+"_"+t.Arch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, t.exe())
	ld := fmt.Sprintf("-s -w -X %[1]s.version=%[2]s -X %[1]s.commit=%[3]s -X %[1]s.date=%[4]s",
		buildinfoPkg, r.v.Describe, r.v.Commit, r.v.Date.Format(time.RFC3339))
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ld, "-o", bin, "./cmd/rpa")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build for %s: %w", t, err)
	}
	st, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(os.Stderr, "release: built %s binary, %.2f MB (%s)\n", t, float64(st.Size())/1e6, time.Since(start).Round(100*time.Millisecond))
	return bin, nil
}

// hostBinary returns a binary that runs here: the built one for this
// platform, else one built for the host (only to read the help texts).
func (r *release) hostBinary() (string, error) {
	if b, ok := r.bins[hostTarget()]; ok {
		return b, nil
	}
	bin := filepath.Join(r.stage, "host", "rpa")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/rpa")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build for the host: %w", err)
	}
	return bin, nil
}

// writeDocs writes the shipped documents into the stage.
func (r *release) writeDocs() error {
	d := filepath.Join(r.stage, "doc")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	copyIn := func(src, name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(r.root, src))
		if err != nil {
			return "", err
		}
		p := filepath.Join(d, name)
		return p, os.WriteFile(p, b, 0o644)
	}
	var err error
	if r.docs.readme, err = copyIn("README.md", "README.md"); err != nil {
		return err
	}
	if r.docs.copyright, err = copyIn("packaging/copyright", "copyright"); err != nil {
		return err
	}
	if r.docs.license, err = copyIn("LICENSE", "LICENSE"); err != nil {
		return err
	}
	if r.docs.unit, err = copyIn("packaging/rpa-connect.service", "rpa-connect.service"); err != nil {
		return err
	}
	if r.docs.scheduleUnit, err = copyIn("packaging/rpa-schedule.service", "rpa-schedule.service"); err != nil {
		return err
	}
	if r.docs.connectEnv, err = copyIn("packaging/connect.env", "connect.env.example"); err != nil {
		return err
	}
	if r.docs.guide, err = guideFiles(r.root); err != nil {
		return err
	}

	var goos []string
	for _, t := range r.targets {
		goos = append(goos, t.OS+"/"+t.Arch)
	}
	lic, err := thirdPartyLicenses(r.root, goos)
	if err != nil {
		return err
	}
	r.docs.thirdParty = filepath.Join(d, "THIRD_PARTY_LICENSES")
	if err := os.WriteFile(r.docs.thirdParty, lic, 0o644); err != nil {
		return err
	}

	host, err := r.hostBinary()
	if err != nil {
		return err
	}
	h, err := readHelp(host)
	if err != nil {
		return err
	}
	man := manPage(h, r.v)
	r.docs.man = filepath.Join(d, "rpa.1")
	if err := os.WriteFile(r.docs.man, man, 0o644); err != nil {
		return err
	}
	// The packages ship it gzipped (reproducibly: no name, fixed time).
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.ModTime = r.v.Date
	_, _ = zw.Write(man)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(r.docs.man+".gz", gz.Bytes(), 0o644)
}

// checksums writes SHA256SUMS (sha256sum's format) over the artifacts.
func (r *release) checksums() error {
	sort.Strings(r.artifacts)
	var b strings.Builder
	for _, a := range r.artifacts {
		f, err := os.Open(filepath.Join(r.out, a))
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), a)
	}
	return writeFileAtomic(filepath.Join(r.out, "SHA256SUMS"), []byte(b.String()))
}

// writeFileAtomic writes name through a temp file and a rename.
func writeFileAtomic(name string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
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

// runHelp runs bin with args (10 s at most, no stdin, a throwaway
// RPA_HOME) and returns what it printed on stdout and stderr.
func runHelp(bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", "rpa-release-home-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home, "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s %s: no answer within 10s", bin, strings.Join(args, " "))
	}
	if _, ok := err.(*exec.ExitError); ok {
		err = nil // -h exits 0 or 2 depending on the command; the text is what counts
	}
	return out.String(), err
}

// guideFiles lists what README.md links to besides itself: every file of
// root/docs, and the example flows at the top of root/flows (.flow, .yaml),
// by their path from root with slashes ("docs/spec/LANGUAGE.md",
// "flows/query_power_data.flow"), sorted; dot files skipped.
func guideFiles(root string) ([]docFile, error) {
	var out []docFile
	dir := filepath.Join(root, "docs")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out = append(out, docFile{rel: filepath.ToSlash(rel), src: path})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("docs folder: %w", err)
	}
	flows, err := os.ReadDir(filepath.Join(root, "flows"))
	if err != nil {
		return nil, fmt.Errorf("flows folder: %w", err)
	}
	for _, e := range flows {
		if ext := filepath.Ext(e.Name()); e.Type().IsRegular() && (ext == ".flow" || ext == ".yaml") {
			out = append(out, docFile{rel: "flows/" + e.Name(), src: filepath.Join(root, "flows", e.Name())})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}
