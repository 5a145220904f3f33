package importer

import "fmt"

// formatNames are the --format names of `rpa import`.
var formatNames = map[string]Format{"chrome": FormatChrome, "side": FormatSide, "json": FormatJSONFlow}

// ParseFormat is the Format an --format name stands for: chrome, side or
// json; "" is "" (detected from the file).
func ParseFormat(name string) (Format, error) {
	if name == "" {
		return "", nil
	}
	f, ok := formatNames[name]
	if !ok {
		return "", fmt.Errorf("unknown --format %q (want chrome, side or json)", name)
	}
	return f, nil
}

// Shown returns the source diagnostics about file in quote (for
// diag.Render): src with the recorded passwords as "***" (Redact, made on
// first use); nil for any other file.
func Shown(in string, src []byte, o Options) func(file string) []byte {
	var shown []byte
	return func(file string) []byte {
		if file != in {
			return nil
		}
		if shown == nil {
			shown = Redact(in, src, o)
		}
		return shown
	}
}
