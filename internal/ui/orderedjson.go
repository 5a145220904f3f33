package ui

import "github.com/rpa-dev/rpa/internal/orderedjson"

// jsonObject is a JSON object with its keys in document order (tables show their columns as the
// flow returned them).
type jsonObject = orderedjson.Object

// decodeOrdered decodes JSON keeping object key order (orderedjson.Decode).
func decodeOrdered(b []byte) (any, error) { return orderedjson.Decode(b) }

// get returns o's value at key (nil when o is not an object or has no such key).
func get(o any, key string) any { return orderedjson.Get(o, key) }
