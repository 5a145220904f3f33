// Package schedule runs flows on a schedule (`rpa schedule`): a cron
// expression in a time zone (robfig/cron/v3's parser; zones from the Go
// time zone database, built in with time/tzdata) or a fixed interval,
// with the flow's arguments, a profile or account, retries with a
// doubling backoff, a timeout, concurrency limits per flow, site and
// account, a missed-run policy and failure notices (a webhook and a
// desktop notification).
//
// Schedules live in the run store (runs.ScheduleRecord, the Def here as
// JSON), so every rpa process on one $RPA_HOME sees the same ones. Each
// long-running process (`rpa serve`, `rpa connect`, `rpa ui`, `rpa
// schedule daemon`) runs a Scheduler; the one holding the run store's
// lease (StoreLease: a row renewed at every tick, free once it runs out
// or its process dies) fires them, the others stand by. Every step is a
// conditional change of the store (runs.Store.AdvanceSchedule,
// ClaimFire, EndFire), so even two schedulers that both believed they
// held the lease could not fire one due time twice or pass a limit.
//
// A due time becomes a fire (runs.Fire): queued, started when its limits
// and this process's MaxRunning allow, run by the Runner — LocalRunner,
// the path `rpa run` takes (localrun.Run), so a scheduled run is an
// ordinary run in the history marked with its schedule (runs.Run.Schedule)
// — and retried on failure (each retry's run names the one it retries,
// runs.Run.RetryOf). A fire that fails after its retries, or waits in the
// queue longer than MaxWait, gets one failure notice; past MaxQueued
// waiting fires of one schedule a new one is dropped (noted, no notice).
//
// The time is a Clock (FakeClock in tests), the schedules and fires a
// Store, the lease a Lease and the runner a Runner. A gateway cluster's
// schedules (in JetStream, fired once across replicas, landing on a linked
// desktop) are package clustered's; they read their times as this package
// does (When, Due).
package schedule
