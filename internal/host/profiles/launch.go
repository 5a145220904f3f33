package profiles

import (
	"context"
	"errors"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Launch starts a browser with d on opts while this process holds its
// profile folder: the folder is claimed first (ClaimWait: another rpa
// process is asked to hand it over and waited for, up to ctx's
// WithClaimWait, else DefaultClaimWait; refused with a KindBrowser
// *core.Error wrapping the *InUseError when a browser of this process
// holds it, or another rpa process keeps it) and let go when the browser
// process has exited (opts.OnExit, after the caller's own). With
// opts.Remote (a browser that runs elsewhere) or no UserDataDir nothing is
// claimed.
func Launch(ctx context.Context, d drivers.Driver, opts drivers.LaunchOptions) (drivers.Browser, error) {
	hold, err := claimFor(ctx, &opts)
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
// the browser is remote; ClaimWait with ctx's wait) and chains the
// release into opts.OnExit. When ctx ends while it waits the error is
// ctx's.
func claimFor(ctx context.Context, opts *drivers.LaunchOptions) (*Lock, error) {
	if opts.Remote != "" || opts.UserDataDir == "" {
		return nil, nil
	}
	hold, err := ClaimWait(ctx, opts.UserDataDir, claimWaitOf(ctx))
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
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
