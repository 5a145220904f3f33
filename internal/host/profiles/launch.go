package profiles

import (
	"context"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Launch starts a browser with d on opts while this process holds its
// profile folder: the folder is claimed first (Claim; refused with a
// KindBrowser *core.Error wrapping the *InUseError when a browser of this
// process or another rpa process holds it) and let go when the browser
// process has exited (opts.OnExit, after the caller's own). With
// opts.Remote (a browser that runs elsewhere) or no UserDataDir nothing is
// claimed.
func Launch(ctx context.Context, d drivers.Driver, opts drivers.LaunchOptions) (drivers.Browser, error) {
	hold, err := claimFor(&opts)
	if err != nil {
		return nil, err
	}
	b, err := d.Launch(ctx, opts)
	if err != nil {
		hold.Unlock() // a driver that started no process may not have called OnExit
		return nil, err
	}
	return b, nil
}

// claimFor claims opts.UserDataDir for a launch (nil when it names none or
// the browser is remote) and chains the release into opts.OnExit.
func claimFor(opts *drivers.LaunchOptions) (*Lock, error) {
	if opts.Remote != "" || opts.UserDataDir == "" {
		return nil, nil
	}
	hold, err := Claim(opts.UserDataDir)
	if err != nil {
		return nil, &core.Error{Kind: core.KindBrowser, Msg: err.Error(), Err: err}
	}
	prev := opts.OnExit
	opts.OnExit = func() {
		if prev != nil {
			prev()
		}
		hold.Unlock()
	}
	return hold, nil
}
