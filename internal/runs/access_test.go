package runs

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOwnerOwns(t *testing.T) {
	a := Owner{Kind: CallerMCP, Session: "s-aaaaaaaaaaaa"}
	b := Owner{Kind: CallerMCP, Session: "s-bbbbbbbbbbbb"}
	at := Owner{Kind: CallerMCP, Session: "s-aaaaaaaaaaaa", Token: TokenDigest("T")}
	bt := Owner{Kind: CallerMCP, Session: "s-bbbbbbbbbbbb", Token: TokenDigest("T")}
	bu := Owner{Kind: CallerMCP, Session: "s-bbbbbbbbbbbb", Token: TokenDigest("U")}
	link1 := Owner{Kind: CallerLink, Session: "s-111111111111", Device: "pc1"}
	link2 := Owner{Kind: CallerLink, Session: "s-222222222222", Device: "pc1"}
	otherPC := Owner{Kind: CallerLink, Session: "s-222222222222", Device: "pc2"}
	cli := Owner{Kind: CallerCLI}
	aLive := func(s string) bool { return s == a.Session }
	none := func(string) bool { return false }
	for _, c := range []struct {
		name    string
		who, by Owner
		live    func(string) bool
		want    bool
	}{
		{"own session", a, a, aLive, true},
		{"another session, no token, owner live", b, a, aLive, false},
		{"another session, no token, owner gone", b, a, none, false},
		{"same token, owner live", bt, at, aLive, false},
		{"same token, owner gone", bt, at, none, true},
		{"other token, owner gone", bu, at, none, false},
		{"same session, other token", Owner{Kind: CallerMCP, Session: a.Session, Token: TokenDigest("U")}, at, aLive, false},
		{"link re-dialled", link2, link1, none, true},
		{"another device's link", otherPC, link1, none, false},
		{"an MCP session and a CLI run", a, cli, none, false},
		{"an empty owner", Owner{}, Owner{}, none, false},
		{"the desktop", Desktop, at, aLive, true},
		{"the desktop and a CLI run", Desktop, cli, none, true},
		{"kinds differ", Owner{Kind: CallerLink, Session: a.Session}, a, aLive, false},
	} {
		if got := c.who.Owns(c.by, c.live); got != c.want {
			t.Errorf("%s: Owns = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestListByOwner: List with an owner keeps that owner's runs, also
// across pages of the underlying query, and a token digest survives a
// reopen of the store (it is a column a store of an older version gets on
// open).
func TestListByOwner(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := Caller{Kind: CallerMCP, Session: "s-aaaaaaaaaaaa", Token: TokenDigest("T")}
	b := Caller{Kind: CallerMCP, Session: "s-bbbbbbbbbbbb", Token: TokenDigest("T")}
	var aIDs []string
	for i := 0; i < 7; i++ {
		c := b
		if i%3 == 0 {
			c = a
		}
		r := &Run{Flow: "f", Caller: c}
		if _, err := s.Begin(r); err != nil {
			t.Fatal(err)
		}
		if c == a {
			aIDs = append(aIDs, r.ID)
		}
	}
	s.Close()
	if s, err = Open(home, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	live := func(d string) bool { return d == a.Session || d == b.Session }
	o := OwnerOf(a)
	got, err := s.List(Filter{Owner: &o, Live: live, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != aIDs[2] || got[1].ID != aIDs[1] || got[0].Caller.Token != a.Token {
		t.Fatalf("A runs: %s %s %q (want %v newest first)", got[0].ID, got[len(got)-1].ID, got[0].Caller.Token, aIDs)
	}
	ob := OwnerOf(b)
	if got, _ := s.List(Filter{Owner: &ob, Live: live}); len(got) != 4 {
		t.Fatalf("B sees %d runs while A lives, want its own 4", len(got))
	}
	if got, _ := s.List(Filter{Owner: &ob, Live: func(d string) bool { return d == b.Session }}); len(got) != 7 {
		t.Fatalf("B sees %d runs once A's session ended, want 7 (same token)", len(got))
	}
}

// TestOldStoreGetsTokenColumn: a store created before the token column
// opens, gains it, and records owners.
func TestOldStoreGetsTokenColumn(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(home, "runs", DBName))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(schema, "  token TEXT NOT NULL DEFAULT '',\n", "", 1)
	if old == schema {
		t.Fatal("the schema has no token column to leave out")
	}
	if _, err := db.Exec(old); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &Run{Flow: "f", Caller: Caller{Kind: CallerMCP, Session: "s-aaaaaaaaaaaa", Token: TokenDigest("T")}}
	if _, err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(r.ID); err != nil || got.Caller.Token != TokenDigest("T") {
		t.Fatalf("%+v %v", got, err)
	}
}
