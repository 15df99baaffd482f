// The built-in tools of the gramc command: sayHello, sayGoodbye and
// currentTime.

package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/gramlang/gram/schema"
)

// personSchema is the parameter schema of the greeting tools: the person's
// name as one optional string, personName (as seed 002 and the examples
// declare it, with a default in the agent file) or name (as seeds 000, 001
// and 003 declare it, required). A declaration with either binds.
var personSchema = schema.Object{
	{Key: "type", Value: "object"},
	{Key: "properties", Value: schema.Object{
		{Key: "personName", Value: schema.Object{{Key: "type", Value: "string"}}},
		{Key: "name", Value: schema.Object{{Key: "type", Value: "string"}}},
	}},
	{Key: "required", Value: []string{}},
	{Key: "additionalProperties", Value: false},
}

// Builtins returns a new library holding [SayHello], [SayGoodbye] and
// [CurrentTime].
func Builtins() *Library {
	return NewLibrary(SayHello(), SayGoodbye(), CurrentTime(time.Now))
}

// SayHello returns the built-in sayHello tool: a greeting ("Hello, Bob!
// Nice to meet you.") for the person the agent file's parameter names,
// declared as `(personName::String {default: ...})` or `(name::Text)`; a
// default is applied before the tool runs, and without a name it greets
// "world". It has no description of its own and so adopts the
// specification's.
func SayHello() Tool {
	return Tool{Name: "sayHello", Parameters: personSchema, Invoke: greeting("Hello, %s! Nice to meet you.")}
}

// SayGoodbye returns the built-in sayGoodbye tool: a farewell for the
// person named, declared as for [SayHello].
func SayGoodbye() Tool {
	return Tool{Name: "sayGoodbye", Parameters: personSchema, Invoke: greeting("Goodbye, %s! Have a wonderful day.")}
}

// greeting returns an Invoke function formatting the person's name
// (personName, else name, else "world") into format.
func greeting(format string) func(context.Context, map[string]any) (any, error) {
	return func(_ context.Context, args map[string]any) (any, error) {
		name, _ := args["personName"].(string)
		if name == "" {
			name, _ = args["name"].(string)
		}
		if name == "" {
			name = "world"
		}
		return fmt.Sprintf(format, name), nil
	}
}

// CurrentTime returns the built-in currentTime tool: the time now() gives,
// in RFC 3339 form. It accepts whatever parameters the specification
// declares; a string parameter "timezone" holding an IANA zone name (such
// as "Europe/Paris") selects the zone, the local zone otherwise.
func CurrentTime(now func() time.Time) Tool {
	return Tool{Name: "currentTime", Invoke: func(_ context.Context, args map[string]any) (any, error) {
		t := now()
		if tz, _ := args["timezone"].(string); tz != "" {
			loc, err := time.LoadLocation(tz)
			if err != nil {
				return nil, fmt.Errorf("unknown time zone %q (use an IANA name such as Europe/Paris)", tz)
			}
			t = t.In(loc)
		}
		return t.Format(time.RFC3339), nil
	}}
}
