package connect

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Check reports a URL that is not ws://HOST/PATH or wss://HOST/PATH, or a
// missing DeviceID (New checks them too; `rpa connect` checks before it
// builds anything).
func (o Options) Check() error {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("URL %q must be ws://HOST/PATH or wss://HOST/PATH", o.URL)
	}
	if strings.TrimSpace(o.DeviceID) == "" {
		return errors.New("--device-id is required")
	}
	return nil
}
