// Package totp computes the time-based one-time passwords of RFC 6238
// (the codes of authenticator apps) for the flow language's `totp(SEED)`
// function and checks the seeds the vault stores. The codes come from
// github.com/pquerna/otp; this package only reads the seed's forms and
// options.
//
// A seed is either a base32 secret as sites show it ("JBSW Y3DP EHPK 3PXP":
// case, spaces, dashes and missing padding do not matter) or an
// otpauth://totp/ URI as a QR code holds it (its secret, algorithm, digits
// and period are used). Options given to Code override the URI's.
package totp

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pquerna/otp"
	pqtotp "github.com/pquerna/otp/totp"
)

// Options are a code's parameters (RFC 6238 section 4 and the otpauth URI
// format). The zero value of a field means: the URI's value, else the
// default (SHA1, 6 digits, 30 s).
type Options struct {
	// Algorithm is the HMAC hash: "SHA1", "SHA256" or "SHA512" (any case).
	Algorithm string
	// Digits is the code's length: 6 or 8.
	Digits int
	// Period is the time step in seconds (30 or 60 in practice; 1 to 3600
	// accepted).
	Period int
}

// Key is a parsed seed with its options.
type Key struct {
	secret string // base32, upper case, no spaces
	alg    otp.Algorithm
	digits otp.Digits
	period uint
}

// ErrSeed matches (errors.Is) every error about a seed that cannot be read.
var ErrSeed = errors.New("bad TOTP seed")

// seedError wraps ErrSeed with what is wrong; it never quotes the seed.
type seedError struct{ why string }

func (e *seedError) Error() string        { return "bad TOTP seed: " + e.why }
func (e *seedError) Is(target error) bool { return target == ErrSeed }

// Parse reads a seed (base32 or an otpauth://totp/ URI) with o over the
// URI's options. Errors (ErrSeed) say what is wrong without quoting the
// seed, which is a secret.
func Parse(seed string, o Options) (*Key, error) {
	k := &Key{alg: otp.AlgorithmSHA1, digits: otp.DigitsSix, period: 30}
	s := strings.TrimSpace(seed)
	if strings.HasPrefix(strings.ToLower(s), "otpauth:") {
		u, err := url.Parse(s)
		if err != nil {
			return nil, &seedError{"not a valid otpauth URI"}
		}
		if !strings.EqualFold(u.Host, "totp") {
			return nil, &seedError{fmt.Sprintf("an otpauth URI of type %q, want totp", u.Host)}
		}
		q := u.Query()
		s = q.Get("secret")
		if s == "" {
			return nil, &seedError{"the otpauth URI has no secret"}
		}
		ou := Options{Algorithm: q.Get("algorithm")}
		if d := q.Get("digits"); d != "" {
			if _, err := fmt.Sscan(d, &ou.Digits); err != nil {
				return nil, &seedError{"the otpauth URI's digits are not a number"}
			}
		}
		if p := q.Get("period"); p != "" {
			if _, err := fmt.Sscan(p, &ou.Period); err != nil {
				return nil, &seedError{"the otpauth URI's period is not a number"}
			}
		}
		if err := k.apply(ou); err != nil {
			return nil, err
		}
	}
	if err := k.apply(o); err != nil {
		return nil, err
	}
	s = strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "\t", "", "=", "").Replace(s))
	if s == "" {
		return nil, &seedError{"it is empty"}
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '2' && r <= '7') {
			return nil, &seedError{"it is not base32 (letters A-Z and digits 2-7)"}
		}
	}
	if len(s)%8 == 1 || len(s)%8 == 3 || len(s)%8 == 6 {
		return nil, &seedError{"its base32 length is impossible (a character is missing or extra)"}
	}
	k.secret = s
	return k, nil
}

// apply sets the non-zero options of o.
func (k *Key) apply(o Options) error {
	switch strings.ToUpper(strings.ReplaceAll(o.Algorithm, "-", "")) {
	case "":
	case "SHA1":
		k.alg = otp.AlgorithmSHA1
	case "SHA256":
		k.alg = otp.AlgorithmSHA256
	case "SHA512":
		k.alg = otp.AlgorithmSHA512
	default:
		return &seedError{fmt.Sprintf("algorithm %q, want SHA1, SHA256 or SHA512", o.Algorithm)}
	}
	switch o.Digits {
	case 0:
	case 6:
		k.digits = otp.DigitsSix
	case 8:
		k.digits = otp.DigitsEight
	default:
		return &seedError{fmt.Sprintf("%d digits, want 6 or 8", o.Digits)}
	}
	switch {
	case o.Period == 0:
	case o.Period < 1 || o.Period > 3600:
		return &seedError{fmt.Sprintf("period %d s, want 1 to 3600 (30 or 60 in practice)", o.Period)}
	default:
		k.period = uint(o.Period)
	}
	return nil
}

// Code is the key's code at t: Digits decimal digits of the HOTP value
// (RFC 4226) of the time step floor(unix(t) / Period).
func (k *Key) Code(t time.Time) (string, error) {
	c, err := pqtotp.GenerateCodeCustom(k.secret, t, pqtotp.ValidateOpts{
		Period: k.period, Digits: k.digits, Algorithm: k.alg,
	})
	if err != nil {
		return "", &seedError{"it is not base32"}
	}
	return c, nil
}

// Remaining is how long the code of t stays valid: the time left in its
// step.
func (k *Key) Remaining(t time.Time) time.Duration {
	p := time.Duration(k.period) * time.Second
	return p - time.Duration(t.UnixNano())%p
}

// Code parses seed with o and returns its code at t (Parse, Key.Code).
func Code(seed string, o Options, t time.Time) (string, error) {
	k, err := Parse(seed, o)
	if err != nil {
		return "", err
	}
	return k.Code(t)
}
