//go:build !unix

package gateway

import "time"

// cpuTime is not measured here (the CPU overhead metric reads 0).
func cpuTime() time.Duration { return 0 }
