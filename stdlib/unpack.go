package stdlib

import (
	"fmt"
	"time"

	"github.com/rpa-dev/rpa/lang"
)

// Unpack converts the call's arguments into Go variables, as starlark's
// UnpackArgs does: pairs is a list of a name and a pointer, in the order the
// values are checked (and so the order of the errors). A name is one of the
// action's positional params (Action.Params: "selector", "value" ...) or
// one of its own options ("button", "count" ...). The pointer's type says
// what the value must be:
//
//   - *[]string: a selector or a list of selectors;
//   - *string: a string (numbers and bools in their plain form);
//   - *int: an integer;
//   - *bool: true or false;
//   - *time.Duration: a duration ("500ms") .
//
// An absent option or optional param leaves its variable as it is (its
// default); an absent required param is an error. A value of the wrong
// kind is an *core.Error of kind expression naming the action and the
// param (`click: count: must be an integer, got a string`). A name that is
// neither a param nor an option of the action, or an unsupported pointer,
// is a programming error and panics.
func (c *Call) Unpack(pairs ...any) error {
	if len(pairs)%2 != 0 {
		panic("stdlib.Call.Unpack: odd number of arguments")
	}
	for i := 0; i < len(pairs); i += 2 {
		name, ok := pairs[i].(string)
		if !ok {
			panic(fmt.Sprintf("stdlib.Call.Unpack: argument %d is not a name", i))
		}
		v, what, present := c.lookupArg(name)
		if !present {
			continue
		}
		if err := c.unpackOne(what, v, pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// lookupArg finds the value of param or option name; what is how an error
// names it ("selector", "count:"), present says whether to convert it.
func (c *Call) lookupArg(name string) (v any, what string, present bool) {
	for i, p := range c.Action.Params {
		if p.Name != name {
			continue
		}
		if i < len(c.Args) {
			v = c.Args[i]
		}
		return v, name, v != nil || !p.Optional
	}
	for _, o := range c.Action.Options {
		if o.Name == name {
			v, ok := c.Opt(name)
			return v, name + ":", ok
		}
	}
	panic(fmt.Sprintf("stdlib.Call.Unpack: %s has no param or option %q", c.Action.Name, name))
}

func (c *Call) unpackOne(what string, v any, dst any) error {
	switch d := dst.(type) {
	case *[]string:
		sels, err := toSels(c, what, v)
		if err != nil {
			return err
		}
		*d = sels
	case *string:
		s, err := toStr(c, what, v)
		if err != nil {
			return err
		}
		*d = s
	case *int:
		n, ok := lang.ToInt(v)
		if !ok {
			return c.argErr(what, v, "an integer")
		}
		*d = n
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return c.argErr(what, v, "true or false")
		}
		*d = b
	case *time.Duration:
		dur, ok := lang.ToDuration(v)
		if !ok {
			return c.argErr(what, v, "a duration")
		}
		*d = dur
	default:
		panic(fmt.Sprintf("stdlib.Call.Unpack: unsupported destination %T", dst))
	}
	return nil
}
