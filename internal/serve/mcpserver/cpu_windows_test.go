package mcpserver

import "time"

// processCPU is not measured on Windows (the benchmarks' cpu-ms/op reads 0).
func processCPU() time.Duration { return 0 }
