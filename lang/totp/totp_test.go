package totp

import (
	"encoding/base32"
	"errors"
	"strings"
	"testing"
	"time"
)

// RFC 6238 Appendix B: the seeds are these ASCII strings, 8 digits, 30 s.
var rfcSeeds = map[string]string{
	"SHA1":   "12345678901234567890",
	"SHA256": "12345678901234567890123456789012",
	"SHA512": "1234567890123456789012345678901234567890123456789012345678901234",
}

var rfcVectors = []struct {
	unix int64
	alg  string
	code string
}{
	{59, "SHA1", "94287082"}, {59, "SHA256", "46119246"}, {59, "SHA512", "90693936"},
	{1111111109, "SHA1", "07081804"}, {1111111109, "SHA256", "68084774"}, {1111111109, "SHA512", "25091201"},
	{1111111111, "SHA1", "14050471"}, {1111111111, "SHA256", "67062674"}, {1111111111, "SHA512", "99943326"},
	{1234567890, "SHA1", "89005924"}, {1234567890, "SHA256", "91819424"}, {1234567890, "SHA512", "93441116"},
	{2000000000, "SHA1", "69279037"}, {2000000000, "SHA256", "90698825"}, {2000000000, "SHA512", "38618901"},
	{20000000000, "SHA1", "65353130"}, {20000000000, "SHA256", "77737706"}, {20000000000, "SHA512", "47863826"},
}

func b32(s string) string { return base32.StdEncoding.EncodeToString([]byte(s)) }

func TestRFC6238Vectors(t *testing.T) {
	for _, v := range rfcVectors {
		at := time.Unix(v.unix, 0)
		seed := b32(rfcSeeds[v.alg])
		got, err := Code(seed, Options{Algorithm: v.alg, Digits: 8}, at)
		if err != nil || got != v.code {
			t.Errorf("%s at %d: %q %v, want %s", v.alg, v.unix, got, err, v.code)
		}
		// The same through an otpauth URI.
		uri := "otpauth://totp/Portal:admin?issuer=Portal&digits=8&algorithm=" + v.alg + "&secret=" + strings.TrimRight(seed, "=")
		if got, err := Code(uri, Options{}, at); err != nil || got != v.code {
			t.Errorf("URI %s at %d: %q %v, want %s", v.alg, v.unix, got, err, v.code)
		}
		// Six digits are the last six of the eight.
		if got, err := Code(seed, Options{Algorithm: v.alg}, at); err != nil || got != v.code[2:] {
			t.Errorf("%s 6 digits at %d: %q %v, want %s", v.alg, v.unix, got, err, v.code[2:])
		}
	}
}

// TestWindowEdge: the code changes exactly at a step boundary, and a 60 s
// period steps half as often.
func TestWindowEdge(t *testing.T) {
	seed := b32(rfcSeeds["SHA1"])
	k, err := Parse(seed, Options{Digits: 8})
	if err != nil {
		t.Fatal(err)
	}
	code := func(sec int64, k *Key) string {
		c, err := k.Code(time.Unix(sec, 0))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if a, b := code(30, k), code(59, k); a != b || a != "94287082" {
		t.Errorf("one step 30..59: %s %s", a, b)
	}
	if code(59, k) == code(60, k) {
		t.Error("the code did not change at 60 s")
	}
	if d := k.Remaining(time.Unix(59, 0)); d != time.Second {
		t.Errorf("Remaining at 59 s = %v", d)
	}
	if d := k.Remaining(time.Unix(60, 0)); d != 30*time.Second {
		t.Errorf("Remaining at 60 s = %v", d)
	}
	k60, err := Parse(seed, Options{Digits: 8, Period: 60})
	if err != nil {
		t.Fatal(err)
	}
	// Step 1 of a 60 s period is 60..119, the value of step 1 at 30 s.
	if got := code(119, k60); got != "94287082" {
		t.Errorf("60 s period at 119 s: %s", got)
	}
	if code(119, k60) == code(120, k60) {
		t.Error("60 s period: the code did not change at 120 s")
	}
	if code(60, k60) != code(119, k60) {
		t.Error("60 s period: 60 and 119 differ")
	}
}

func TestSeedForms(t *testing.T) {
	seed := b32(rfcSeeds["SHA1"]) // GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ
	want, _ := Code(seed, Options{}, time.Unix(59, 0))
	spaced := strings.ToLower(seed[:4] + " " + seed[4:8] + "-" + seed[8:])
	if got, err := Code(spaced, Options{}, time.Unix(59, 0)); err != nil || got != want {
		t.Errorf("spaced, lower case: %q %v", got, err)
	}
	// The option overrides the URI.
	uri := "otpauth://totp/x?secret=" + seed + "&digits=6"
	if got, _ := Code(uri, Options{Digits: 8}, time.Unix(59, 0)); got != "94287082" {
		t.Errorf("Options over URI: %s", got)
	}
}

func TestBadSeeds(t *testing.T) {
	for _, c := range []struct {
		seed string
		o    Options
		want string
	}{
		{"", Options{}, "it is empty"},
		{"not base32!", Options{}, "not base32"},
		{"GEZDGNBVGY3TQOJQ1", Options{}, "not base32"},
		{"GEZDGNBVG", Options{}, "impossible"},
		{"otpauth://hotp/x?secret=GEZDGNBV", Options{}, `type "hotp"`},
		{"otpauth://totp/x", Options{}, "has no secret"},
		{"otpauth://totp/x?secret=GEZDGNBV&digits=x", Options{}, "digits are not a number"},
		{"GEZDGNBV", Options{Digits: 7}, "7 digits, want 6 or 8"},
		{"GEZDGNBV", Options{Algorithm: "MD5"}, `algorithm "MD5"`},
		{"GEZDGNBV", Options{Period: -1}, "period -1 s"},
		{"otpauth://totp/x?secret=GEZDGNBV&period=9999", Options{}, "period 9999 s"},
	} {
		_, err := Parse(c.seed, c.o)
		if !errors.Is(err, ErrSeed) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %+v) = %v, want %q", c.seed, c.o, err, c.want)
		}
		if err != nil && c.seed != "" && strings.Contains(err.Error(), c.seed) {
			t.Errorf("the error quotes the seed: %v", err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 8, 30)
	f.Add("otpauth://totp/a:b?secret=JBSWY3DPEHPK3PXP&algorithm=SHA512&digits=8&period=60", 0, 0)
	f.Add("jbsw y3dp-ehpk 3pxp", 6, 60)
	f.Fuzz(func(t *testing.T, seed string, digits, period int) {
		k, err := Parse(seed, Options{Digits: digits, Period: period})
		if err != nil {
			if !errors.Is(err, ErrSeed) {
				t.Fatalf("error not ErrSeed: %v", err)
			}
			return
		}
		c, err := k.Code(time.Unix(1234567890, 0))
		if err != nil {
			t.Fatalf("a parsed key gives no code: %v", err)
		}
		if len(c) != 6 && len(c) != 8 {
			t.Fatalf("code %q", c)
		}
	})
}
