// The built-in tools of the gramc command: sayHello, sayGoodbye and
// currentTime.

package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/gramlang/gram/schema"
)

// personSchema is the parameter schema of the greeting tools: one optional
// string, personName (its default comes from the agent file).
var personSchema = schema.Object{
	{Key: "type", Value: "object"},
	{Key: "properties", Value: schema.Object{{Key: "personName", Value: schema.Object{{Key: "type", Value: "string"}}}}},
	{Key: "required", Value: []string{}},
	{Key: "additionalProperties", Value: false},
}

// Builtins returns a new library holding [SayHello], [SayGoodbye] and
// [CurrentTime].
func Builtins() *Library {
	return NewLibrary(SayHello(), SayGoodbye(), CurrentTime(time.Now))
}

// SayHello returns the built-in sayHello tool: a greeting for personName,
// which the agent file declares as `(personName::String {default: ...})`
// (the default is applied before the tool runs). It has no description of
// its own and so adopts the specification's.
func SayHello() Tool {
	return Tool{Name: "sayHello", Parameters: personSchema, Invoke: greeting("Hello, %s! Nice to meet you.")}
}

// SayGoodbye returns the built-in sayGoodbye tool: a farewell for
// personName, declared as for [SayHello].
func SayGoodbye() Tool {
	return Tool{Name: "sayGoodbye", Parameters: personSchema, Invoke: greeting("Goodbye, %s! Have a wonderful day.")}
}

// greeting returns an Invoke function formatting personName into format.
func greeting(format string) func(context.Context, map[string]any) (any, error) {
	return func(_ context.Context, args map[string]any) (any, error) {
		name, _ := args["personName"].(string)
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
