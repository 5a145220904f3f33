package core

import (
	"context"
	"time"
)

// Sleep pauses for d or until ctx ends, and returns ctx.Err() (nil when
// the pause ran its course with ctx still live). d <= 0 returns at once.
// It is the one cancellable pause of the runtime: the replay engine's
// `every`, `sleep`, pollers in the action library and the drivers.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return ctx.Err()
}
