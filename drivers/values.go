package drivers

import "context"

type secretValueKey struct{}

// WithSecretValue returns ctx marked: the value an element operation is
// given (Fill, Type, Select) is a secret, so its errors never quote the
// value nor what the element holds afterwards (which may be part of it).
// stdlib marks the value of a `secret` param, or of anything computed from
// one, this way.
func WithSecretValue(ctx context.Context) context.Context {
	return context.WithValue(ctx, secretValueKey{}, true)
}

// IsSecretValue reports whether ctx was marked by WithSecretValue.
func IsSecretValue(ctx context.Context) bool {
	b, _ := ctx.Value(secretValueKey{}).(bool)
	return b
}
