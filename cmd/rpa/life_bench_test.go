//go:build linux

package main

import (
	"bufio"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServeSoak is the 200-call soak of issue 16: `rpa serve --http`
// (the built binary) runs workflow_quick 200 times on one profile through
// one Go SDK client session; at calls 1, 50, 100 and 200 it reports the
// RSS of rpa and of its Chromium (sum over Chromium's processes; shared
// pages are counted in each), rpa's open file descriptors and the renderer
// processes Chromium runs (renderers). Flat is the goal. Run:
//
//	go test ./cmd/rpa -run '^$' -bench ServeSoak -benchtime 1x -v
func BenchmarkServeSoak(b *testing.B) {
	for range b.N {
		soak(b, 200)
	}
}

// BenchmarkServeRSS is rpa's own memory serving one profile (issue 24:
// at most 30 MB): `rpa serve --http` (the built binary) runs
// workflow_quick 20 times on one profile, then its resident set
// (VmRSS, rpa alone, not Chromium) is reported as rpa-RSS-MB, with the
// file-backed part by section of the executable. Run:
//
//	go test ./cmd/rpa -run '^$' -bench ServeRSS -benchtime 1x -v
//
// Where it goes (measured at 37.5 MB): about 27.5 MB are pages of the
// executable (.text, .gopclntab, .rodata), from some 500 page faults,
// each of which maps up to 64 KB of pages the page cache holds around
// the one touched (the kernel's fault-around; madvise(MADV_RANDOM) does
// not turn it off: checked on Linux 6.18, 32 reads 256 KB apart mapped
// 2 MB with or without it). So the resident size of the executable
// follows how many 64 KB windows of it the run touches, not how much
// code it runs; the rest is ~10 MB of heap, runtime and SQLite memory.
func BenchmarkServeRSS(b *testing.B) {
	for range b.N {
		soak(b, 20)
	}
}

func soak(b *testing.B, calls int) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads /proc")
	}
	site, _ := lifeSite(b)
	flows := lifeFlows(b, site)
	home := lifeHome(b)
	profile := filepath.Join(home, "profiles", "work")
	srv, endpoint := serveHTTP(b, home, flows)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ResetTimer()
	start := time.Now()
	for i := 1; i <= calls; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_quick", Arguments: map[string]any{"profileId": "work"}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %+v", i, err, res)
		}
		if i == 1 || i == 50 || i == 100 || i == 200 || i == calls {
			rpaRSS := rssKB(srv.Process.Pid)
			var chRSS, chPSS int
			pids := browsersOn(profile)
			for _, pid := range pids {
				chRSS += rssKB(pid)
				chPSS += pssKB(pid)
			}
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", srv.Process.Pid))
			st := fmt.Sprintf("/proc/%d/status", srv.Process.Pid)
			b.Logf("call %3d: rpa RSS %5.1f MB (anonymous %.1f, file-backed %.1f); Chromium RSS sum %6.1f MB, PSS sum %6.1f MB (%d processes); rpa fds %d; renderers %d",
				i, float64(rpaRSS)/1024, float64(procKB(st, "RssAnon:"))/1024, float64(procKB(st, "RssFile:"))/1024, float64(chRSS)/1024, float64(chPSS)/1024, len(pids), len(fds), renderers(pids))
		}
	}
	if by, err := exeResident(srv.Process.Pid); err == nil {
		b.Logf("rpa's file-backed RSS by section of its executable: %s", by)
	} else {
		b.Logf("rpa's file-backed RSS by section: %v", err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(calls), "ms/call")
	b.ReportMetric(float64(rssKB(srv.Process.Pid))/1024, "rpa-RSS-MB")
	b.StopTimer()
	_ = srv.Process.Signal(syscall.SIGTERM)
	waitGone(b, srv.Process.Pid)
}

// rssKB is a process's resident set in kB (0 when gone).
func rssKB(pid int) int { return procKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") }

// pssKB is a process's proportional set in kB: shared pages divided
// among their sharers, so a sum over Chromium's processes is fair.
func pssKB(pid int) int { return procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") }

func procKB(path, key string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key) {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	return 0
}

// renderers counts the renderer processes among pids (Chromium's tabs and
// frames: one or more per open tab). rpa speaks DevTools over a pipe, so
// no HTTP endpoint lists the tabs; a leaked tab shows as a growing count.
func renderers(pids []int) int {
	n := 0
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err == nil && strings.Contains(string(b), "--type=renderer") {
			n++
		}
	}
	return n
}

// exeResident says how much of each section of process pid's executable
// is resident in its page tables (/proc/PID/pagemap's present bit for the
// pages of the executable's mappings in /proc/PID/maps), largest first:
// where rpa's file-backed RSS is (issue 24: mostly the 64 KiB the kernel
// maps around each page fault in .text, .gopclntab and .rodata).
func exeResident(pid int) (string, error) {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return "", err
	}
	ef, err := elf.Open(exe)
	if err != nil {
		return "", err
	}
	defer ef.Close()
	maps, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return "", err
	}
	defer maps.Close()
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return "", err
	}
	defer pm.Close()
	page := uint64(os.Getpagesize())
	kb := map[string]uint64{}
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != exe {
			continue
		}
		var lo, hi uint64
		if _, err := fmt.Sscanf(f[0], "%x-%x", &lo, &hi); err != nil {
			continue
		}
		buf := make([]byte, (hi-lo)/page*8)
		if _, err := pm.ReadAt(buf, int64(lo/page*8)); err != nil {
			return "", err
		}
		for i := uint64(0); i < (hi-lo)/page; i++ {
			if binary.LittleEndian.Uint64(buf[i*8:])&(1<<63) == 0 {
				continue
			}
			name := "other"
			for _, s := range ef.Sections {
				if a := lo + i*page; s.Addr != 0 && a+page > s.Addr && a < s.Addr+s.Size {
					name = s.Name
					break
				}
			}
			kb[name] += page / 1024
		}
	}
	names := make([]string, 0, len(kb))
	for n := range kb {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return kb[names[i]] > kb[names[j]] })
	var out []string
	for _, n := range names {
		out = append(out, fmt.Sprintf("%s %.1f MB", n, float64(kb[n])/1024))
	}
	return strings.Join(out, ", "), nil
}
