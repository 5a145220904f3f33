package vault

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The file format (a vault file and an export file alike), three lines of
// text:
//
//	rpa-vault 1 sha256=HEX
//	{"key":{...},"check":"...","entries":[{"name":...,"fields":[...],"updated":...}]}
//	BASE64(nonce || AES-256-GCM ciphertext)
//
// Line 1 names the format and its version and holds the SHA-256 of lines
// 2 and 3 (with their newlines): a truncated or damaged file is refused
// before any key is asked for. Line 2, the header, says where the key
// comes from (the OS keyring, or a passphrase through argon2id with its
// salt and costs), holds a key check (HMAC-SHA256 of checkLabel under the
// key, 16 bytes: a wrong passphrase is told from a damaged file) and the
// index (names, field names, update times; never a value), so names can
// be listed without the key. Line 3 is the sealed body, the JSON object
// {NAME: {FIELD: VALUE}}, with "rpa-vault 1\n" and line 2 as the additional
// data of the AEAD: neither the index nor the key parameters can be
// changed unseen (line 1's checksum is checked, not bound: anyone can
// recompute it).
const (
	magic      = "rpa-vault"
	version    = 1
	checkLabel = "rpa vault key check"
	keyLen     = 32
)

// header is line 2 of a file.
type header struct {
	// Kind says what the sealed part holds: "" (a vault or a vault export:
	// accounts) or another payload's name (KindProfile).
	Kind    string  `json:"kind,omitempty"`
	Key     keyInfo `json:"key"`
	Check   string  `json:"check"`
	Entries []Info  `json:"entries"`
}

// KindProfile marks an `rpa profile export` file (a browser profile's
// storage state).
const KindProfile = "profile"

// keyInfo says where a file's key comes from.
type keyInfo struct {
	// Source is SourceKeyring or SourcePassphrase.
	Source string `json:"source"`
	// ID names the key in the OS keyring (SourceKeyring).
	ID string `json:"id,omitempty"`
	// KDF is "argon2id" (SourcePassphrase), with its salt and costs.
	KDF       string `json:"kdf,omitempty"`
	Salt      []byte `json:"salt,omitempty"`
	Time      uint32 `json:"time,omitempty"`
	MemoryKiB uint32 `json:"memoryKiB,omitempty"`
	Threads   uint8  `json:"threads,omitempty"`
}

// Key sources of a file.
const (
	SourceKeyring    = "keyring"
	SourcePassphrase = "passphrase"
)

// ErrWrongKey matches (errors.Is) a key that does not open a file: a
// wrong passphrase, or a keyring entry that is not this vault's.
var ErrWrongKey = errors.New("wrong key")

// ErrDamaged matches (errors.Is) a file that is truncated, altered or not
// a vault file at all.
var ErrDamaged = errors.New("damaged vault file")

// FileError is a vault or export file that cannot be opened; it never
// holds a value of the file.
type FileError struct {
	Path string
	Msg  string
	kind error // ErrWrongKey or ErrDamaged
}

// Error reads "PATH: MSG".
func (e *FileError) Error() string { return e.Path + ": " + e.Msg }

// Is matches ErrWrongKey or ErrDamaged as the case is.
func (e *FileError) Is(target error) bool { return target == e.kind }

func damaged(path, msg string) error { return &FileError{Path: path, Msg: msg, kind: ErrDamaged} }

// seal writes the file text of body under key with h (its Check is set
// here).
func seal(h header, key []byte, body map[string]map[string]string) ([]byte, error) {
	pt, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return sealBytes(h, key, pt)
}

// sealBytes writes the file text of the plaintext pt (cleared after) under
// key with h.
func sealBytes(h header, key []byte, pt []byte) ([]byte, error) {
	h.Check = keyCheck(key)
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	var rest bytes.Buffer
	rest.Write(hb)
	rest.WriteByte('\n')
	line1 := func(rest []byte) string {
		sum := sha256.Sum256(rest)
		return fmt.Sprintf("%s %d sha256=%s\n", magic, version, hex.EncodeToString(sum[:]))
	}
	aad := []byte(fmt.Sprintf("%s %d\n", magic, version) + string(hb) + "\n")
	ct := aead.Seal(nonce, nonce, pt, aad)
	clear(pt)
	rest.WriteString(base64.StdEncoding.EncodeToString(ct))
	rest.WriteByte('\n')
	out := append([]byte(line1(rest.Bytes())), rest.Bytes()...)
	return out, nil
}

// readHeader checks a file's format and hash and returns its header and
// its sealed body (nonce and ciphertext) and the AAD, without a key.
func readHeader(path string, b []byte) (header, []byte, []byte, error) {
	var h header
	if len(b) == 0 {
		return h, nil, nil, damaged(path, "the file is empty")
	}
	if !bytes.HasPrefix(b, []byte(magic+" ")) {
		return h, nil, nil, damaged(path, "not an rpa vault file")
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	first := strings.Fields(string(lines[0]))
	if len(first) < 2 {
		return h, nil, nil, damaged(path, "the file is truncated")
	}
	if v, err := strconv.Atoi(first[1]); err != nil || v != version {
		if err == nil && v > version {
			return h, nil, nil, damaged(path, fmt.Sprintf("written by a newer rpa (format %d; this rpa reads format %d)", v, version))
		}
		return h, nil, nil, damaged(path, "not an rpa vault file (bad format line)")
	}
	if len(lines) < 3 || !bytes.HasSuffix(b, []byte("\n")) {
		return h, nil, nil, damaged(path, fmt.Sprintf("the file is truncated (%d bytes)", len(b)))
	}
	if len(lines) > 3 || len(first) != 3 || !strings.HasPrefix(first[2], "sha256=") {
		return h, nil, nil, damaged(path, "the file was altered (its layout is not a vault's)")
	}
	rest := b[len(lines[0]):]
	sum := sha256.Sum256(rest)
	if hex.EncodeToString(sum[:]) != strings.TrimPrefix(first[2], "sha256=") {
		return h, nil, nil, damaged(path, "the file is damaged or was altered (its checksum does not match)")
	}
	hb := bytes.TrimSuffix(lines[1], []byte("\n"))
	if err := json.Unmarshal(hb, &h); err != nil {
		return h, nil, nil, damaged(path, "the file was altered (its header is not valid JSON)")
	}
	sealed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(lines[2])))
	if err != nil || len(sealed) < 12+16 {
		return h, nil, nil, damaged(path, "the file was altered (its sealed part is not valid)")
	}
	aad := []byte(fmt.Sprintf("%s %d\n", magic, version) + string(hb) + "\n")
	return h, sealed, aad, nil
}

// open decrypts a vault file's body with key.
func open(path string, h header, sealed, aad, key []byte) (map[string]map[string]string, error) {
	if h.Kind != "" {
		return nil, damaged(path, fmt.Sprintf("not a vault but a %s export file", h.Kind))
	}
	pt, err := openBytes(path, h, sealed, aad, key)
	if err != nil {
		return nil, err
	}
	defer clear(pt)
	body := map[string]map[string]string{}
	if err := json.Unmarshal(pt, &body); err != nil {
		return nil, damaged(path, "the file was altered (its sealed part is not valid JSON)")
	}
	if !sameIndex(h.Entries, body) {
		return nil, damaged(path, "the file was altered (its index does not match its entries)")
	}
	return body, nil
}

// openBytes decrypts a file's sealed part with key.
func openBytes(path string, h header, sealed, aad, key []byte) ([]byte, error) {
	if !hmac.Equal([]byte(keyCheck(key)), []byte(h.Check)) {
		what := "the vault passphrase is wrong"
		if h.Key.Source == SourceKeyring {
			what = "the key in the OS keyring does not open this file"
		}
		return nil, &FileError{Path: path, Msg: what, kind: ErrWrongKey}
	}
	aead, err := newAEAD(key)
	if err != nil {
		return nil, err
	}
	ns := aead.NonceSize()
	pt, err := aead.Open(nil, sealed[:ns], sealed[ns:], aad)
	if err != nil {
		return nil, damaged(path, "the file was altered (it fails authentication)")
	}
	return pt, nil
}

// SealData encrypts data (cleared afterwards) under a passphrase (argon2id
// with kdf's costs; zero: DefaultKDF) in the vault's file format, marked
// kind (what it holds, such as KindProfile): an export file that only
// OpenData of the same kind and passphrase opens.
func SealData(kind string, data, pass []byte, kdf KDF) ([]byte, error) {
	if len(pass) == 0 {
		return nil, errors.New("the export file needs a passphrase")
	}
	k := &Keys{KDF: kdf}
	ki, key := k.passphraseKey(pass)
	return sealBytes(header{Kind: kind, Key: ki, Entries: []Info{}}, key, data)
}

// OpenData decrypts a file of SealData (b, read from path) with its
// passphrase. A file of another kind, damaged or altered is ErrDamaged, a
// wrong passphrase ErrWrongKey (*FileError naming path).
func OpenData(path string, b []byte, kind string, pass []byte) ([]byte, error) {
	h, sealed, aad, err := readHeader(path, b)
	if err != nil {
		return nil, err
	}
	if h.Kind != kind {
		what := "a vault export"
		if h.Kind != "" {
			what = "a " + h.Kind + " export"
		}
		return nil, damaged(path, fmt.Sprintf("this is %s file, not a %s export", what, kind))
	}
	key, err := (&Keys{}).keyFor(path, h.Key, pass)
	if err != nil {
		return nil, err
	}
	pt, err := openBytes(path, h, sealed, aad, key)
	if errors.Is(err, ErrWrongKey) {
		err = &FileError{Path: path, Msg: "the export file's passphrase is wrong", kind: ErrWrongKey}
	}
	return pt, err
}

// sameIndex reports whether idx names exactly the entries and fields of
// body.
func sameIndex(idx []Info, body map[string]map[string]string) bool {
	if len(idx) != len(body) {
		return false
	}
	for _, in := range idx {
		fields, ok := body[in.Name]
		if !ok || len(fields) != len(in.Fields) {
			return false
		}
		for _, f := range in.Fields {
			if _, ok := fields[f]; !ok {
				return false
			}
		}
	}
	return true
}

func keyCheck(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(checkLabel))
	return base64.StdEncoding.EncodeToString(m.Sum(nil)[:16])
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != keyLen {
		return nil, fmt.Errorf("vault key: %d bytes, want %d", len(key), keyLen)
	}
	blk, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(blk)
}
