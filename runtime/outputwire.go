// Typed results on the wire: the response format each provider's SDK
// takes.
//
// OpenAI (and the servers compatible with it) get response_format
// {"type":"json_schema","json_schema":{"name","schema","strict"}};
// Anthropic the Messages API's structured outputs, output_config
// {"format":{"type":"json_schema","schema"}}, which has no strict switch
// and no name, the schema rewritten as the SDK rewrites one for that API
// (the keywords it lacks, such as minimum or minLength, moved into the
// description; every object closed); Gemini responseMimeType "application/json" with
// responseJsonSchema (with the tools beside it, which the Gemini 3
// models take). Every provider is sent the same schema; the answer
// is validated whatever the provider made of it.

package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// openaiResponseFormat returns the response_format of a chat completion
// request for f.
func openaiResponseFormat(f *OutputFormat) openai.ChatCompletionNewParamsResponseFormatUnion {
	js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: f.Name, Schema: f.Schema}
	js.Strict = openai.Bool(f.Strict)
	return openai.ChatCompletionNewParamsResponseFormatUnion{
		OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js},
	}
}

// anthropicOutputConfig returns the output_config of a Messages request
// for f: the SDK takes the schema as a map, which its structured output
// helper rewrites for the API.
func anthropicOutputConfig(f *OutputFormat) (anthropic.OutputConfigParam, error) {
	b, err := json.Marshal(f.Schema)
	if err != nil {
		return anthropic.OutputConfigParam{}, &ConfigError{Message: fmt.Sprintf("the result schema of %q cannot be written: %v", f.Name, err)}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return anthropic.OutputConfigParam{}, &ConfigError{Message: fmt.Sprintf("the result schema of %q cannot be written: %v", f.Name, err)}
	}
	if t, ok := anthropic.BetaJSONSchemaOutputFormat(m).Schema.(map[string]any); ok && t != nil {
		m = t
	}
	return anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: m}}, nil
}
