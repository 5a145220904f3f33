package interp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rpa-dev/rpa/lang"
)

// ArgsFromJSON builds a flow's typed arguments from a JSON object (data,
// e.g. the file of `rpa run --args`) and string overrides (NAME=VALUE,
// `--arg`). With no overrides the JSON values are checked as CheckArgs
// does (integral numbers are ints, others float64). With overrides each
// JSON value is turned back into its string spelling (a string as is,
// null dropped, anything else as JSON), the overrides win on a clash, and
// all are converted by param type as ParseArgs does. data must hold one
// JSON object; bad arguments are *ArgError naming the field.
func ArgsFromJSON(f *lang.Flow, data []byte, overrides map[string]string) (map[string]any, error) {
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		if err == nil {
			err = errors.New("want a JSON object")
		}
		return nil, err
	}
	if len(overrides) == 0 {
		return CheckArgs(f, numbersToGo(obj).(map[string]any))
	}
	kv := map[string]string{}
	for k, v := range obj {
		switch x := v.(type) {
		case string:
			kv[k] = x
		case nil:
		default:
			js, _ := json.Marshal(x)
			kv[k] = string(js)
		}
	}
	for k, v := range overrides {
		kv[k] = v
	}
	return ParseArgs(f, kv)
}

// numbersToGo turns json.Number into int (when integral) or float64,
// recursively, so `int` params accept 3 and `number` params 2.5.
func numbersToGo(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbersToGo(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = numbersToGo(e)
		}
		return x
	}
	return v
}

// ArgsFromFile is the typed arguments of a run from the JSON file at path
// (ArgsFromJSON; "" is none: ParseArgs of the overrides alone) and the
// string overrides. An *ArgError is returned as is; a file that cannot be
// read or is not a JSON object is an error naming --args.
func ArgsFromFile(f *lang.Flow, path string, overrides map[string]string) (map[string]any, error) {
	if path == "" {
		return ParseArgs(f, overrides)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--args: %w", err)
	}
	args, err := ArgsFromJSON(f, b, overrides)
	if err != nil && !errors.As(err, new(*ArgError)) {
		return nil, fmt.Errorf("--args %s: %v", path, err)
	}
	return args, err
}
