package runs

import (
	"encoding/json"
	"testing"
	"time"
)

// TestMarks: marks are kept per flow, line and list, the newest KeepMarks
// of each; LastFingerprint finds the newest by list, else by line, and
// skips marks without a fingerprint.
func TestMarks(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Unix(1700000000, 0)
	var ms []Mark
	for i := 0; i < KeepMarks+5; i++ {
		ms = append(ms, Mark{Flow: "f", Line: 3, Selectors: []string{"#a", "#b"}, At: t0.Add(time.Duration(i) * time.Second), Matched: i % 2,
			Fingerprint: json.RawMessage(`{"tag":"button","text":"n` + string(rune('a'+i)) + `"}`)})
	}
	ms = append(ms, Mark{Flow: "f", Line: 3, Selectors: []string{"#a", "#b"}, At: t0.Add(time.Hour), Matched: MatchedNone})
	ms = append(ms, Mark{Flow: "g", Line: 3, Selectors: []string{"#a", "#b"}, At: t0, Matched: 0, Fingerprint: json.RawMessage(`{"tag":"a"}`)})
	if err := s.AddMarks(ms); err != nil {
		t.Fatal(err)
	}
	got, err := s.Marks("f", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != KeepMarks || got[0].Matched != MatchedNone || got[len(got)-1].At.Before(t0.Add(6*time.Second)) {
		t.Fatalf("kept %d marks, newest %+v oldest %v", len(got), got[0], got[len(got)-1].At)
	}
	fp, err := s.LastFingerprint("f", 99, []string{"#a", "#b"})
	if err != nil || string(fp) != `{"tag":"button","text":"n`+string(rune('a'+KeepMarks+4))+`"}` {
		t.Fatalf("by list: %s %v", fp, err)
	}
	if fp, _ := s.LastFingerprint("g", 3, []string{"#other"}); string(fp) != `{"tag":"a"}` {
		t.Fatalf("by line: %s", fp)
	}
	if fp, _ := s.LastFingerprint("h", 3, []string{"#a"}); fp != nil {
		t.Fatalf("unknown flow: %s", fp)
	}
}
