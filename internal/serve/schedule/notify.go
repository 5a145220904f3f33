package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ncruces/zenity"

	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// Notice is the failure notice of a fire that failed after its retries
// (or was dropped from the queue): the JSON body of the webhook POST.
// Everything in it comes from the run store, masked there: no argument
// and no secret is in it.
type Notice struct {
	Event    string    `json:"event"` // schedule.failed or schedule.dropped
	Schedule string    `json:"schedule"`
	Flow     string    `json:"flow"`
	Status   string    `json:"status"`          // the fire's state: failed or dropped
	RunID    string    `json:"runId,omitempty"` // the last attempt's run
	Runs     []string  `json:"runs,omitempty"`  // every attempt's run, oldest first
	Attempts int       `json:"attempts"`
	Due      time.Time `json:"due"`
	// Summary is one line: the last attempt's error, or why it was dropped.
	Summary string       `json:"summary"`
	Error   *NoticeError `json:"error,omitempty"`
}

// NoticeError is the last run's error as the run store has it.
type NoticeError struct {
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
	Line    int    `json:"line,omitempty"`
	Action  string `json:"action,omitempty"`
}

// Webhook delivery: tries and the first wait between them (doubling).
const (
	WebhookTries   = 4
	WebhookBackoff = 2 * time.Second
	// WebhookTimeout bounds one POST.
	WebhookTimeout = 10 * time.Second
)

// Notifier sends a notice to the schedule's webhook (Def.Notify: a JSON
// POST, tried WebhookTries times with a doubling wait on a network error
// or a 5xx/429 answer) and as a desktop notification where there is a
// display. Send's error is the webhook's (the desktop notification is
// best effort).
type Notifier struct {
	Clock  Clock        // the waits between tries (nil: SystemClock)
	Client *http.Client // nil: one with WebhookTimeout
	// Desktop shows a desktop notification (nil: zenity.Notify where
	// hitl.HasDisplay; tests set their own).
	Desktop func(title, text string) error
}

// Send delivers n.
func (nt *Notifier) Send(ctx context.Context, d *Def, n *Notice) error {
	desk := nt.Desktop
	if desk == nil {
		desk = desktopNotify
	}
	text := fmt.Sprintf("%s failed after %d attempt(s): %s", d.FlowName, n.Attempts, n.Summary)
	if n.Status != "failed" {
		text = fmt.Sprintf("%s did not run: %s", d.FlowName, n.Summary)
	}
	_ = desk("rpa: schedule "+d.Name, text)
	if d.Notify == "" {
		return nil
	}
	return nt.post(ctx, d.Notify, n)
}

func desktopNotify(title, text string) error {
	if !hitl.HasDisplay() {
		return errors.New("no display")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return zenity.Notify(text, zenity.Title(title), zenity.Context(ctx), zenity.WarningIcon)
}

// post POSTs n to u, with retries.
func (nt *Notifier) post(ctx context.Context, u string, n *Notice) error {
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	client := nt.Client
	if client == nil {
		client = &http.Client{Timeout: WebhookTimeout}
	}
	clock := nt.Clock
	if clock == nil {
		clock = SystemClock{}
	}
	wait := WebhookBackoff
	var last error
	for try := 1; try <= WebhookTries; try++ {
		retry, err := postOnce(ctx, client, u, body)
		if err == nil {
			return nil
		}
		last = err
		if !retry || try == WebhookTries {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("webhook %s: %w", redactURL(u), ctx.Err())
		case <-clock.After(wait):
		}
		wait *= 2
	}
	return fmt.Errorf("webhook %s: %v", redactURL(u), last)
}

// postOnce POSTs body; retry says whether another try may succeed.
func postOnce(ctx context.Context, client *http.Client, u string, body []byte) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "rpa-schedule")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, by the caller
		}
		return true, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	retry = resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
	return retry, fmt.Errorf("answered %s", resp.Status)
}

// redactURL is u without its query (a token may be there) for messages.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(the URL)"
	}
	p.RawQuery, p.Fragment, p.User = "", "", nil
	return p.String()
}

// ProbeNotifyURL checks at `rpa schedule add` that the webhook's host
// answers: its name resolves and a TCP connection opens within timeout.
// Nothing is sent. The error says which part failed.
func ProbeNotifyURL(ctx context.Context, u string, timeout time.Duration) error {
	if err := CheckNotifyURL(u); err != nil {
		return err
	}
	p, _ := url.Parse(u)
	port := p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[p.Scheme]
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var dialer net.Dialer
	c, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort(p.Hostname(), port))
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return fmt.Errorf("--notify %s: cannot reach %s: %s", redactURL(u), net.JoinHostPort(p.Hostname(), port), msg)
	}
	c.Close()
	return nil
}
