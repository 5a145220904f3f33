package rod

// rootReason is "" on Windows: the sandbox works for an administrator too.
func rootReason() string { return "" }
