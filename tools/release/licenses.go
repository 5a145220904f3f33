package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// thirdPartyLicenses collects the licence files of every module linked
// into ./cmd/rpa for the given GOOS/GOARCH pairs (`go list -deps`), in
// module path order, for /usr/share/doc/rpa/THIRD_PARTY_LICENSES. A module
// without a licence file at its root is listed as such.
func thirdPartyLicenses(root string, platforms []string) ([]byte, error) {
	type mod struct{ path, version, dir string }
	mods := map[string]mod{}
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", "./cmd/rpa")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list -deps for %s: %v: %s", p, err, stderr.String())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Split(sc.Text(), "\t")
			if len(f) != 3 || f[0] == "" {
				continue
			}
			mods[f[0]] = mod{f[0], f[1], f[2]}
		}
	}
	paths := make([]string, 0, len(mods))
	for p := range mods {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	fmt.Fprintf(&b, "Third-party Go modules linked into rpa (%d), with their licence texts.\n", len(paths))
	for _, p := range paths {
		m := mods[p]
		fmt.Fprintf(&b, "\n================================================================================\n%s %s\n", m.path, m.version)
		files := licenceFiles(m.dir)
		if len(files) == 0 {
			b.WriteString("(no licence file at the module's root)\n")
			continue
		}
		for _, f := range files {
			txt, err := os.ReadFile(filepath.Join(m.dir, f))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "--- %s ---\n", f)
			b.Write(bytes.TrimRight(txt, "\n"))
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// licenceFiles lists LICENSE*, LICENCE*, COPYING* and NOTICE* at dir's root.
func licenceFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := strings.ToUpper(e.Name())
		if e.IsDir() {
			continue
		}
		for _, p := range []string{"LICENSE", "LICENCE", "COPYING", "NOTICE"} {
			if strings.HasPrefix(n, p) {
				out = append(out, e.Name())
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
