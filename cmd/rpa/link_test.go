package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// End-to-end tests of `rpa gateway` and `rpa connect` as built binaries.

var (
	linkBinOnce sync.Once
	linkBinPath string
	linkBinErr  error
)

func linkBin(t *testing.T) string {
	t.Helper()
	linkBinOnce.Do(func() {
		dir, err := binDir("rpa-link-bin-")
		if err != nil {
			linkBinErr = err
			return
		}
		linkBinPath = filepath.Join(dir, "rpa")
		if out, err := exec.Command("go", "build", "-o", linkBinPath, ".").CombinedOutput(); err != nil {
			linkBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if linkBinErr != nil {
		t.Fatal(linkBinErr)
	}
	return linkBinPath
}

const linkToken = "link-test-token-5a1"

// proc is a running rpa process whose stderr is collected.
type proc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr strings.Builder
	lines  chan string
	done   chan struct{}
	code   int
}

func startProc(t *testing.T, home string, args ...string) *proc {
	return startProcEnv(t, home, nil, args...)
}

func startProcEnv(t *testing.T, home string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{lines: make(chan string, 256), done: make(chan struct{})}
	p.cmd = exec.Command(linkBin(t), args...)
	p.cmd.Env = append(append(os.Environ(), "RPA_HOME="+home), env...)
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	// SIGTERM first, so the process closes its browsers before the test's
	// temporary folders are removed (a SIGKILLed process's Chromium may
	// still be writing its profile); SIGKILL if it hangs.
	t.Cleanup(func() {
		p.signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			p.signal(syscall.SIGKILL)
			<-p.done
		}
	})
	return p
}

func (p *proc) signal(s syscall.Signal) {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(s)
	}
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (p *proc) waitExit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("process did not exit; stderr:\n%s", p.log())
		return -1
	}
}

var listenRE = regexp.MustCompile(`listening on https?://([0-9.:]+)/`)

// startGatewayProc starts `rpa gateway` and returns it with its address.
func startGatewayProc(t *testing.T, home, listen string, extra ...string) (*proc, string) {
	t.Helper()
	p := startProc(t, home, append([]string{"gateway", "--listen", listen, "--token", linkToken, "--shared-device-token"}, extra...)...)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l := <-p.lines:
			if m := listenRE.FindStringSubmatch(l); m != nil {
				return p, m[1]
			}
		case <-timeout:
			t.Fatalf("gateway did not start; stderr:\n%s", p.log())
		}
	}
}

type devicesOut struct {
	Devices []struct {
		DeviceID string   `json:"deviceId"`
		Tools    []string `json:"tools"`
	} `json:"devices"`
}

func getDevices(addr string) (devicesOut, error) {
	return getDevicesWith(http.DefaultClient, "http://"+addr)
}

func getDevicesWith(hc *http.Client, base string) (devicesOut, error) {
	var out devicesOut
	req, _ := http.NewRequest("GET", base+"/devices", nil)
	req.Header.Set("Authorization", "Bearer "+linkToken)
	resp, err := hc.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return out, fmt.Errorf("%s: %s", resp.Status, b)
	}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

func waitDevice(t *testing.T, addr, id, tool string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("device %s with %s listed at %s", id, tool, addr), func() bool {
		d, err := getDevices(addr)
		if err != nil {
			return false
		}
		for _, dev := range d.Devices {
			if dev.DeviceID == id && strings.Contains(strings.Join(dev.Tools, ","), tool) {
				return true
			}
		}
		return false
	})
}

type bearerRT struct{}

func (bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+linkToken)
	return http.DefaultTransport.RoundTrip(r)
}

const helloFlow = "flow hello \"Say hello\"\n\nparam name: string \"Who\"\n\nreturn { \"greeting\": \"hello \" + name }\n"

func TestGatewayAndConnectBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary")
	}
	home := t.TempDir()
	flows := filepath.Join(home, "myflows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	gw, addr := startGatewayProc(t, home, "127.0.0.1:0")
	desk := startProc(t, home, "connect", "ws://"+addr+"/ws", "--device-id", "pc1", "--token", linkToken, "--flows", flows)
	waitDevice(t, addr, "pc1", "workflow_hello")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "t"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_hello", Arguments: map[string]any{"name": "binary"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"greeting":"hello binary"`) {
		t.Errorf("workflow_hello = %s", b)
	}
	cs.Close()

	// Kill the gateway; the desktop logs the link going down and re-registers with a new one.
	gw.signal(syscall.SIGKILL)
	gw.waitExit(t, 5*time.Second)
	gw2, _ := startGatewayProc(t, home, addr)
	waitDevice(t, addr, "pc1", "workflow_hello")
	if l := desk.log(); !strings.Contains(l, "link down") || strings.Count(l, "link up") < 2 {
		t.Errorf("the desktop did not log its link states:\n%s", l)
	}

	// --once exits (code 1) at the first disconnect.
	once := startProc(t, home, "connect", "ws://"+addr+"/ws", "--device-id", "pc2", "--token", linkToken, "--flows", flows, "--once")
	waitDevice(t, addr, "pc2", "workflow_hello")
	gw2.signal(syscall.SIGTERM)
	if code := once.waitExit(t, 10*time.Second); code != 1 {
		t.Errorf("rpa connect --once exit code %d, want 1; stderr:\n%s", code, once.log())
	}
	for _, p := range []*proc{gw, gw2, desk, once} {
		if strings.Contains(p.log(), linkToken) {
			t.Error("the token reached a log")
		}
	}
	desk.signal(syscall.SIGTERM)
	if code := desk.waitExit(t, 10*time.Second); code != 0 {
		t.Errorf("rpa connect after SIGTERM: exit %d", code)
	}
}

func TestLinkCommandsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"connect", "ws://h/ws"}, "--device-id is required"},
		{[]string{"connect", "--device-id", "x"}, "want the backend's URL"},
		{[]string{"connect", "http://h/ws", "--device-id", "x", "--flows", "."}, "ws://"},
		{[]string{"gateway"}, "--token is required"},
		{[]string{"gateway", "--token", "t", "--tls-cert", "c.pem"}, "go together"},
	} {
		var stderr strings.Builder
		code := run(tc.args, io.Discard, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("rpa %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestConnectOverTLS: `rpa gateway --tls-cert/--tls-key` and `rpa connect wss://...` (the desktop
// trusts the test certificate through SSL_CERT_FILE).
func TestConnectOverTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary")
	}
	home := t.TempDir()
	certPEM, keyPEM := selfSigned(t)
	certFile, keyFile := filepath.Join(home, "cert.pem"), filepath.Join(home, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	flows := filepath.Join(home, "flows")
	_ = os.MkdirAll(flows, 0o755)
	_ = os.WriteFile(filepath.Join(flows, "hello.flow"), []byte(helloFlow), 0o644)
	_, addr := startGatewayProc(t, home, "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	startProcEnv(t, home, []string{"SSL_CERT_FILE=" + certFile}, "connect", "wss://"+addr+"/ws", "--device-id", "tls1", "--token", linkToken, "--flows", flows)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	waitFor(t, "the desktop to register over wss", func() bool {
		d, err := getDevicesWith(hc, "https://"+addr)
		return err == nil && len(d.Devices) == 1 && d.Devices[0].DeviceID == "tls1"
	})
}

// selfSigned makes a certificate for 127.0.0.1 (PEM cert and key).
func selfSigned(t *testing.T) ([]byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "rpa-test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}
