package rod

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
)

// A launched browser speaks CDP over two pipes it inherits
// (--remote-debugging-pipe), never over a TCP port: a DevTools port is
// open to every local user (any of them could read the profile's cookies
// through it), a pipe only to this process. Each message is one JSON
// object followed by a NUL byte, in both directions (Chromium's
// content/browser/devtools/devtools_pipe_handler.cc). The browser reads
// from the first pipe and writes to the second: on Linux and macOS they
// are its file descriptors 3 and 4 (pipe_unix.go); on Windows, where
// handles are not numbered that way, their handle values are passed as
// --remote-debugging-io-pipes=READ,WRITE (pipe_windows.go), as Chromium's
// own ChromeDriver does (chrome/test/chromedriver/net/pipe_builder.cc).

// attachPipes gives cmd the DevTools pipes (passPipes says how on this OS) and returns this end,
// and a function that closes the browser's ends here once it started (so its exit reads as the
// end of the pipe).
func attachPipes(cmd *exec.Cmd) (*pipeConn, func(), error) {
	childR, parentW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	parentR, childW, err := os.Pipe()
	if err != nil {
		childR.Close()
		parentW.Close()
		return nil, nil, err
	}
	if err := passPipes(cmd, childR, childW); err != nil {
		childR.Close()
		childW.Close()
		parentR.Close()
		parentW.Close()
		return nil, nil, fmt.Errorf("cdp pipe: %w", err)
	}
	return newPipeConn(parentW, parentR), func() { childR.Close(); childW.Close() }, nil
}

// pipeConn is rod's CDP transport over the two pipes (cdp.WebSocketable).
type pipeConn struct {
	w  *os.File      // to the browser
	rf *os.File      // from the browser
	r  *bufio.Reader // over rf
	mu sync.Mutex    // one Send at a time: rod calls from many goroutines
	// ended is Read's error once the browser's end closed: every Send
	// after it fails with it (see Send)
	ended atomic.Pointer[error]
}

func newPipeConn(toBrowser, fromBrowser *os.File) *pipeConn {
	return &pipeConn{w: toBrowser, rf: fromBrowser, r: bufio.NewReaderSize(fromBrowser, 1<<16)}
}

// maxPipeMessage bounds one message from the browser (a screenshot of a
// large page is tens of megabytes in base64).
const maxPipeMessage = 512 << 20

// Send writes one message and its NUL terminator. Once Read has failed
// (the browser's end closed), Send fails with that error without writing:
// rod's client fails the calls pending when its reader ends and never
// looks at a call stored after that, so a call whose message still went
// into the pipe (a process of the dead browser's can keep the pipe's
// other end open a while) would wait for an answer until its ctx ended.
// Read records its error before rod's client fails the pending calls, so
// a call is either failed there or here.
func (c *pipeConn) Send(data []byte) error {
	if bytes.IndexByte(data, 0) >= 0 {
		return errors.New("cdp pipe: a message holds a NUL byte")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.ended.Load(); e != nil {
		return *e
	}
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), 0)
	_, err := c.w.Write(buf)
	return lost(err)
}

// lost reports a pipe the browser (or Close) ended as a closed connection
// (net.ErrClosed), as the WebSocket transport does, so callers see "the
// browser is gone" whichever transport carried the call.
func lost(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("cdp pipe: %w (%v)", net.ErrClosed, err)
	}
	return err
}

// Read returns the next message without its terminator; an error
// wrapping net.ErrClosed once the browser has closed its end.
func (c *pipeConn) Read() ([]byte, error) {
	var msg []byte
	for {
		chunk, err := c.r.ReadSlice(0)
		msg = append(msg, chunk...)
		switch {
		case err == nil:
			return msg[:len(msg)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(msg) > maxPipeMessage {
				return nil, c.end(errors.New("cdp pipe: a message from the browser is larger than 512 MiB"))
			}
		default:
			return nil, c.end(lost(err))
		}
	}
}

// end records err as Read's last (rod's client stops reading after it)
// and returns it.
func (c *pipeConn) end(err error) error {
	c.ended.Store(&err)
	return err
}

// Close closes both ends (the browser then sees its pipes close).
func (c *pipeConn) Close() error {
	return errors.Join(c.w.Close(), c.rf.Close())
}
