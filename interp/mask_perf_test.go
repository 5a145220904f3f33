package interp

import (
	"math/rand"
	"strings"
	"testing"
	"time"
)

// bigCases are a large secret against a large text: partial matches of
// the secret at every position of a non-ASCII text (the trie of a
// strings.Replacer walked them all: quadratic), and the secret inside.
func bigCases() []struct{ name, secret, text, want string } {
	rnd := rand.New(rand.NewSource(1))
	alpha := []rune("éüßж日本-ab")
	random := func(n int) string {
		r := make([]rune, n)
		for i := range r {
			r[i] = alpha[rnd.Intn(len(alpha))]
		}
		return string(r)
	}
	sec := random(200_000)
	return []struct{ name, secret, text, want string }{
		{"prefixes", strings.Repeat("é", 200_000) + "x", strings.Repeat("é", 100_000), strings.Repeat("é", 100_000)},
		{"prefixes-8k", strings.Repeat("é", 8_000) + "x", strings.Repeat("é", 100_000), strings.Repeat("é", 100_000)},
		{"random", sec, random(100_000), ""},
		{"prefixes-in-longer", strings.Repeat("ж", 200_000) + "!", strings.Repeat("ж", 300_000), strings.Repeat("ж", 300_000)},
		{"inside", strings.Repeat("ж", 8_000) + "!", "a " + strings.Repeat("ж", 8_000) + "! b " + strings.Repeat("ж", 100_000), "a *** b " + strings.Repeat("ж", 100_000)},
	}
}

// A large secret against a large text is masked in linear time; the bound
// only catches a hang.
func TestMaskLargeSecretNoHang(t *testing.T) {
	for _, c := range bigCases() {
		m := &Mask{}
		m.Add(c.secret)
		done := make(chan string, 1)
		go func() { done <- m.String(c.text) }()
		select {
		case got := <-done:
			if c.want != "" && got != c.want {
				t.Errorf("%s: masked %q…", c.name, got[:min(len(got), 40)])
			}
			if c.want == "" && got != c.text {
				t.Errorf("%s: changed a text without the secret", c.name)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: masking hangs", c.name)
		}
	}
}

// BenchmarkMaskLarge masks a 100,000-character text against a large
// secret (go test ./interp -bench MaskLarge -run ^$).
func BenchmarkMaskLarge(b *testing.B) {
	for _, c := range bigCases() {
		m := &Mask{}
		m.Add(c.secret)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for i := 0; i < b.N; i++ {
				m.String(c.text)
			}
		})
	}
}

// BenchmarkMaskShort masks a short line against a few short secrets (the
// common case).
func BenchmarkMaskShort(b *testing.B) {
	m := &Mask{}
	for _, s := range []string{"Zq7-SECRETVAL-k9", "hunter2-long", "tok_ABCDEF123456"} {
		m.Add(s)
	}
	line := "open https://example.test/login?user=ann&token=tok_ABCDEF123456&next=%2Fhome"
	for i := 0; i < b.N; i++ {
		m.String(line)
	}
}
