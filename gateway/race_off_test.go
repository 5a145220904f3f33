//go:build !race

package gateway

// raceEnabled: timing goals are not asserted under the race detector.
const raceEnabled = false
