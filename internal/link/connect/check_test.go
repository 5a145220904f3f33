package connect

import (
	"strings"
	"testing"
)

func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{URL: "ws://h/ws", DeviceID: "d"}, ""},
		{Options{URL: "wss://h:8/x", DeviceID: "d"}, ""},
		{Options{URL: "http://h/ws", DeviceID: "d"}, "must be ws://"},
		{Options{URL: "ws:///ws", DeviceID: "d"}, "must be ws://"},
		{Options{URL: "ws://h/ws", DeviceID: " "}, "--device-id is required"},
	} {
		err := c.o.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
