//go:build linux

package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPicker measures the element picker on the shared machine, in real headless Chromium:
//
//   - pick: a click on the picture to the selectors' answer (POST /api/picker/ID/pick: the
//     point to DOM.getNodeForLocation, selectorgen's list, the JSON), per op;
//   - hover: the outline's answer for a point, per op;
//   - frames: the live picture of a page that paints all the time (a CSS animation), one op a
//     frame received over the event stream: frames/s, and the CPU the picker's Chromium (all its
//     processes) and the console (this process) use meanwhile, in % of one core.
//
// go test -run X -bench Picker -benchtime 50x ./internal/ui/
func BenchmarkPicker(b *testing.B) {
	home := b.TempDir()
	b.Setenv("RPA_HOME", home)
	site := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "picker"))))
	defer site.Close()
	dir := filepath.Join(home, "flows")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.flow"), []byte("flow p \"\"\n\nlog \"x\"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := New(Options{Home: home, FlowsDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	post := func(path, body string) []byte {
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
		req.Header.Set(TokenHeader, s.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		if resp.StatusCode != 200 {
			b.Fatalf("%s: %s %s", path, resp.Status, buf.String())
		}
		return buf.Bytes()
	}
	start := func(page string) string {
		var v struct{ ID string }
		if err := json.Unmarshal(post("/api/picker/start", `{"file":"p.flow","url":"`+site.URL+"/"+page+`"}`), &v); err != nil {
			b.Fatal(err)
		}
		return v.ID
	}

	b.Run("pick", func(b *testing.B) {
		id := start("query.html")
		var srv float64
		b.ResetTimer()
		for range b.N {
			var pk Pick
			if err := json.Unmarshal(post("/api/picker/"+id+"/pick", `{"x":640,"y":360}`), &pk); err != nil {
				b.Fatal(err)
			}
			if len(pk.Selectors) == 0 || pk.Selectors[0].Selector != `[data-testid="query"]` {
				b.Fatalf("picked %+v", pk)
			}
			srv += pk.Ms
		}
		b.ReportMetric(srv/float64(b.N), "server-ms/op")
	})
	b.Run("hover", func(b *testing.B) {
		id := start("query.html")
		b.ResetTimer()
		for i := range b.N {
			post("/api/picker/"+id+"/hover", `{"x":`+strconv.Itoa(600+i%80)+`,"y":360}`)
		}
	})
	b.Run("frames", func(b *testing.B) {
		id := start("animated.html")
		profile := s.pickers().cur.profileDir
		req, _ := http.NewRequest("GET", ts.URL+"/api/picker/"+id+"/frames", nil)
		req.Header.Set(TokenHeader, s.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		next := func() int {
			for sc.Scan() {
				if line := sc.Text(); strings.HasPrefix(line, "data: {\"seq\"") {
					return len(line)
				}
			}
			b.Fatalf("the stream ended: %v", sc.Err())
			return 0
		}
		next() // the first picture
		cpu0, self0, t0 := cpuOf(profile), selfCPU(), time.Now()
		bytes := 0
		b.ResetTimer()
		for range b.N {
			bytes += next()
		}
		el := time.Since(t0)
		b.StopTimer()
		b.ReportMetric(float64(b.N)/el.Seconds(), "frames/s")
		b.ReportMetric(float64(bytes)/float64(b.N)/1024, "KiB/frame")
		if cpu0 >= 0 {
			b.ReportMetric(100*(cpuOf(profile)-cpu0)/el.Seconds(), "chromium-%cpu")
		}
		b.ReportMetric(100*(selfCPU()-self0)/el.Seconds(), "console-%cpu")
	})
}

// cpuOf is the CPU time, in seconds, used so far by the processes running on the profile dir
// (Chromium and its helpers); -1 where /proc is not there.
func cpuOf(dir string) float64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	total := 0.0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cl, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cl, []byte("--user-data-dir="+dir)) {
			continue
		}
		st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		f := strings.Fields(string(st[i+2:]))
		if len(f) > 12 {
			ut, _ := strconv.Atoi(f[11])
			stt, _ := strconv.Atoi(f[12])
			total += float64(ut+stt) / 100 // USER_HZ
		}
	}
	return total
}

// selfCPU is this process's CPU time in seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
