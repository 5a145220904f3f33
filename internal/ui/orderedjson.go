package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// jsonObject is a JSON object with its keys in document order (tables show their columns as the
// flow returned them).
type jsonObject struct {
	Keys []string
	Vals map[string]any
}

// decodeOrdered decodes JSON keeping object key order: objects become *jsonObject, arrays []any,
// numbers json.Number, the rest as encoding/json does.
func decodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &jsonObject{Vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.Vals[k]; !dup {
					o.Keys = append(o.Keys, k)
				}
				o.Vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, errors.New("unexpected delimiter")
	default:
		return t, nil
	}
}

// get returns o's value at key (nil when o is not an object or has no such key).
func get(o any, key string) any {
	if m, ok := o.(*jsonObject); ok {
		return m.Vals[key]
	}
	return nil
}
