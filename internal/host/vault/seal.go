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
//	rpa-vault 2 sha256=HEX
//	{"key":{...},"check":"..."}
//	BASE64(nonce || AES-256-GCM ciphertext)
//
// Line 1 names the format and its version and holds the SHA-256 of lines
// 2 and 3 (with their newlines): a truncated or damaged file is refused
// before any key is asked for. Line 2, the header, says where the key
// comes from (the OS keyring, or a passphrase through argon2id with its
// salt and costs) and holds a key check (HMAC-SHA256 of checkLabel under
// the key, 16 bytes: a wrong passphrase is told from a damaged file). Line
// 3 is the sealed body with "rpa-vault 2\n" and line 2 as the additional
// data of the AEAD: the key parameters cannot be changed unseen (line 1's
// checksum is checked, not bound: anyone can recompute it). A vault's
// body is the JSON object {"index":[{"name":...,"fields":[...],
// "updated":...}],"accounts":{NAME:{FIELD:VALUE}}}: the account names are
// as secret as the values, so nothing about the accounts, not even how
// they are called, can be read without the key, and every read, a list
// included, refuses a wrong one.
//
// Format 1 (rpa before the index was sealed) kept the index in line 2's
// "entries" and sealed only {NAME:{FIELD:VALUE}}. It is still read, with
// the key as format 2 is (its plain index is never trusted nor shown
// without the key); the next change of the vault writes it as format 2
// (atomically, as every change).
const (
	magic   = "rpa-vault"
	version = 2
	// version1 is the format with the index in clear in the header.
	version1   = 1
	checkLabel = "rpa vault key check"
	keyLen     = 32
)

// header is line 2 of a file.
type header struct {
	// Kind says what the sealed part holds: "" (a vault or a vault export:
	// accounts) or another payload's name (KindProfile).
	Kind  string  `json:"kind,omitempty"`
	Key   keyInfo `json:"key"`
	Check string  `json:"check"`
	// Entries is format 1's index in clear (absent from format 2).
	Entries []Info `json:"entries,omitempty"`
}

// sealedFile is a file read up to its key: its header and version, the
// sealed part (nonce and ciphertext) and the AEAD's additional data.
type sealedFile struct {
	h       header
	version int
	sealed  []byte
	aad     []byte
}

// vaultBody is the plaintext of a format-2 vault or vault export.
type vaultBody struct {
	Index    []Info                       `json:"index"`
	Accounts map[string]map[string]string `json:"accounts"`
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

// seal writes the file text of the accounts body with their index idx
// under key with h (its Check is set here), in the current format: the
// index is sealed with the values.
func seal(h header, key []byte, idx []Info, body map[string]map[string]string) ([]byte, error) {
	if idx == nil {
		idx = []Info{}
	}
	pt, err := json.Marshal(vaultBody{Index: idx, Accounts: body})
	if err != nil {
		return nil, err
	}
	h.Entries = nil
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
	aad := additional(version, hb)
	ct := aead.Seal(nonce, nonce, pt, aad)
	clear(pt)
	rest.WriteString(base64.StdEncoding.EncodeToString(ct))
	rest.WriteByte('\n')
	out := append([]byte(line1(rest.Bytes())), rest.Bytes()...)
	return out, nil
}

// readHeader checks a file's format (1 or 2) and hash and returns it up
// to its key.
func readHeader(path string, b []byte) (sealedFile, error) {
	var h header
	var f sealedFile
	if len(b) == 0 {
		return f, damaged(path, "the file is empty")
	}
	if !bytes.HasPrefix(b, []byte(magic+" ")) {
		return f, damaged(path, "not an rpa vault file")
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	first := strings.Fields(string(lines[0]))
	if len(first) < 2 {
		return f, damaged(path, "the file is truncated")
	}
	v, err := strconv.Atoi(first[1])
	if err != nil || v != version && v != version1 {
		if err == nil && v > version {
			return f, damaged(path, fmt.Sprintf("written by a newer rpa (format %d; this rpa reads formats up to %d)", v, version))
		}
		return f, damaged(path, "not an rpa vault file (bad format line)")
	}
	if len(lines) < 3 || !bytes.HasSuffix(b, []byte("\n")) {
		return f, damaged(path, fmt.Sprintf("the file is truncated (%d bytes)", len(b)))
	}
	if len(lines) > 3 || len(first) != 3 || !strings.HasPrefix(first[2], "sha256=") {
		return f, damaged(path, "the file was altered (its layout is not a vault's)")
	}
	rest := b[len(lines[0]):]
	sum := sha256.Sum256(rest)
	if hex.EncodeToString(sum[:]) != strings.TrimPrefix(first[2], "sha256=") {
		return f, damaged(path, "the file is damaged or was altered (its checksum does not match)")
	}
	hb := bytes.TrimSuffix(lines[1], []byte("\n"))
	if err := json.Unmarshal(hb, &h); err != nil {
		return f, damaged(path, "the file was altered (its header is not valid JSON)")
	}
	if v == version && h.Entries != nil {
		return f, damaged(path, "the file was altered (its header holds an index in clear)")
	}
	sealed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(lines[2])))
	if err != nil || len(sealed) < 12+16 {
		return f, damaged(path, "the file was altered (its sealed part is not valid)")
	}
	return sealedFile{h: h, version: v, sealed: sealed, aad: additional(v, hb)}, nil
}

// additional is the AEAD's additional data of a file of format v with
// header line hb: the format line without its checksum, and the header.
func additional(v int, hb []byte) []byte {
	return []byte(fmt.Sprintf("%s %d\n", magic, v) + string(hb) + "\n")
}

// open decrypts a vault file's index and accounts with key.
func open(path string, f sealedFile, key []byte) ([]Info, map[string]map[string]string, error) {
	if f.h.Kind != "" {
		return nil, nil, damaged(path, fmt.Sprintf("not a vault but a %s export file", f.h.Kind))
	}
	pt, err := openBytes(path, f, key)
	if err != nil {
		return nil, nil, err
	}
	defer clear(pt)
	var vb vaultBody
	if f.version == version1 {
		vb.Index, err = f.h.Entries, json.Unmarshal(pt, &vb.Accounts)
	} else {
		err = json.Unmarshal(pt, &vb)
	}
	if err != nil || vb.Accounts == nil {
		return nil, nil, damaged(path, "the file was altered (its sealed part is not valid JSON)")
	}
	if !sameIndex(vb.Index, vb.Accounts) {
		return nil, nil, damaged(path, "the file was altered (its index does not match its entries)")
	}
	return vb.Index, vb.Accounts, nil
}

// openBytes decrypts a file's sealed part with key.
func openBytes(path string, f sealedFile, key []byte) ([]byte, error) {
	h, sealed := f.h, f.sealed
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
	pt, err := aead.Open(nil, sealed[:ns], sealed[ns:], f.aad)
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
		return nil, Input(errors.New("the export file needs a passphrase"))
	}
	k := &Keys{KDF: kdf}
	ki, key := k.passphraseKey(pass)
	return sealBytes(header{Kind: kind, Key: ki}, key, data)
}

// OpenData decrypts a file of SealData (b, read from path) with its
// passphrase. A file of another kind, damaged or altered is ErrDamaged, a
// wrong passphrase ErrWrongKey (*FileError naming path).
func OpenData(path string, b []byte, kind string, pass []byte) ([]byte, error) {
	f, err := readHeader(path, b)
	if err != nil {
		return nil, err
	}
	h := f.h
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
	pt, err := openBytes(path, f, key)
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
