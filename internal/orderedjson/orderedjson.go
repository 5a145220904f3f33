// Package orderedjson decodes JSON keeping the order of object keys, and
// writes such objects back in that order: a table's rows as the flow
// returned them (its page's column order, interp.Row) survive a trip
// through the run store, the console and an export.
package orderedjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Object is a JSON object with its keys in document order. Keys holds
// each key once (a repeated key keeps its first place and its last
// value).
type Object struct {
	Keys []string
	Vals map[string]any
}

// MarshalJSON writes o with its keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.Vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Decode decodes one JSON value keeping object key order: objects become
// *Object, arrays []any, numbers json.Number, the rest as encoding/json
// does. Anything after the value is an error.
func Decode(b []byte) (any, error) {
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
			o := &Object{Vals: map[string]any{}}
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

// Get returns o's value at key (nil when o is not an *Object or has no
// such key).
func Get(o any, key string) any {
	if m, ok := o.(*Object); ok {
		return m.Vals[key]
	}
	return nil
}
