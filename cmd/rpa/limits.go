package main

import (
	"flag"

	"github.com/rpa-dev/rpa/profiles"
)

// poolLimits are the browser pool's bounds of `rpa serve` and `rpa
// connect` (--max-browsers, --max-queue); past them a call is refused
// with -32004 and kind busy (profiles.BusyError).
type poolLimits struct {
	browsers int
	queue    int
}

// register declares the limit flags on fs.
func (l *poolLimits) register(fs *flag.FlagSet) {
	fs.IntVar(&l.browsers, "max-browsers", profiles.DefaultMaxBrowsers,
		"most browsers open at once; one more closes the longest-idle one, or is refused (busy) when all are in use (-1: no bound)")
	fs.IntVar(&l.queue, "max-queue", profiles.DefaultMaxQueue,
		"most calls waiting for one profile; past it a call is refused (busy) at once (-1: no bound)")
}

// apply sets the limits on pool options.
func (l poolLimits) apply(o *profiles.Options) {
	o.MaxBrowsers, o.MaxQueue = l.browsers, l.queue
}
