// A client whose own tool the agent calls: with the official OpenAI
// JavaScript/TypeScript library (the `openai` package at the version
// pinned in package-lock.json) and LangChain's ChatOpenAI.bindTools, it
// passes a getWeather tool to `gramc serve`, gets the agent's call of it,
// runs it itself and sends the result back for the agent's answer. It
// prints one JSON object on standard output:
//
//   {"plain": {...}, "streamed": {...}, "runner": {...}, "langchain": {...},
//    "responses": {"plain": {...}, "streamed": {...}}, "langchainResponses": {...}}
//
// plain and streamed have the call the first answer asked for (name,
// arguments, finish reason) and the answer to the result; runner is the
// library's runTools helper, which runs the tool and sends the result by
// itself; langchain the same exchange through bindTools; responses and
// langchainResponses the same on the Responses API.
//
// Usage: node client-tools-client.mjs BASE_URL MODEL MESSAGE
// The API key is $GRAM_KEY.
import OpenAI from "openai";
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";

const [baseURL, model, message] = process.argv.slice(2);
if (!baseURL || !model || !message) {
  console.error("usage: node client-tools-client.mjs BASE_URL MODEL MESSAGE");
  process.exit(2);
}
const apiKey = process.env.GRAM_KEY || "none";
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 30_000 });

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const tools = [{ type: "function", function: { name: "getWeather", description: "The weather in a city", parameters } }];
const weather = ({ city }) => `sunny in ${city}`;

// plain: the call, the result sent back in a tool message, the answer.
const history = [{ role: "user", content: message }];
const first = await client.chat.completions.create({ model, messages: history, tools });
const asked = first.choices[0].message;
const call = asked.tool_calls?.[0];
history.push(asked, { role: "tool", tool_call_id: call.id, content: weather(JSON.parse(call.function.arguments)) });
const answer = await client.chat.completions.create({ model, messages: history, tools });
const plain = {
  finish: first.choices[0].finish_reason,
  calls: asked.tool_calls.length,
  name: call.function.name,
  arguments: call.function.arguments,
  answer: answer.choices[0].message.content,
  answerFinish: answer.choices[0].finish_reason,
};

// streamed: the call put together from the chunks' tool_calls deltas.
const streamHistory = [{ role: "user", content: message }];
const stream = await client.chat.completions.create({ model, messages: streamHistory, tools, stream: true });
let finish = null;
const pieces = {};
for await (const chunk of stream) {
  for (const choice of chunk.choices) {
    finish = choice.finish_reason ?? finish;
    for (const d of choice.delta?.tool_calls ?? []) {
      const p = (pieces[d.index] ??= { id: "", name: "", arguments: "" });
      p.id += d.id ?? "";
      p.name += d.function?.name ?? "";
      p.arguments += d.function?.arguments ?? "";
    }
  }
}
const sc = pieces[0];
streamHistory.push(
  { role: "assistant", content: null, tool_calls: [{ id: sc.id, type: "function", function: { name: sc.name, arguments: sc.arguments } }] },
  { role: "tool", tool_call_id: sc.id, content: weather(JSON.parse(sc.arguments)) },
);
let streamedAnswer = "";
for await (const chunk of await client.chat.completions.create({ model, messages: streamHistory, tools, stream: true })) {
  streamedAnswer += chunk.choices[0]?.delta?.content ?? "";
}
const streamed = { finish, name: sc.name, arguments: sc.arguments, answer: streamedAnswer };

// runner: the library's own loop runs the tool and sends its result.
const runner = client.chat.completions.runTools({
  model,
  messages: [{ role: "user", content: message }],
  tools: [{ type: "function", function: { name: "getWeather", description: "The weather in a city", parameters, parse: JSON.parse, function: weather } }],
});
const runnerResult = { answer: await runner.finalContent() };

// langchain: bindTools, the AIMessage's tool_calls, a ToolMessage back.
const lc = new ChatOpenAI({ model, apiKey, maxRetries: 0, configuration: { baseURL } }).bindTools(tools);
const lcHistory = [new HumanMessage(message)];
const ai = await lc.invoke(lcHistory);
const lcCall = ai.tool_calls[0];
lcHistory.push(ai, new ToolMessage({ tool_call_id: lcCall.id, content: weather(lcCall.args) }));
const langchain = { name: lcCall.name, args: lcCall.args, answer: (await lc.invoke(lcHistory)).text };

// responses: the Responses API's function_call item and a
// function_call_output item back, plain and with the responses.stream
// helper.
const responseTools = [{ type: "function", name: "getWeather", description: "The weather in a city", parameters, strict: false }];
const exchange = async (streamed) => {
  const input = [{ role: "user", content: message }];
  let first;
  if (streamed) {
    const s = client.responses.stream({ model, input, tools: responseTools });
    for await (const _ of s);
    first = await s.finalResponse();
  } else {
    first = await client.responses.create({ model, input, tools: responseTools });
  }
  const fc = first.output.find((o) => o.type === "function_call");
  input.push(...first.output, { type: "function_call_output", call_id: fc.call_id, output: weather(JSON.parse(fc.arguments)) });
  const answer = await client.responses.create({ model, input, tools: responseTools });
  return { status: first.status, name: fc.name, arguments: fc.arguments, answer: answer.output_text };
};
const responses = { plain: await exchange(false), streamed: await exchange(true) };

// langchainResponses: bindTools on LangChain's Responses API model.
const lcr = new ChatOpenAI({ model, apiKey, maxRetries: 0, configuration: { baseURL }, useResponsesApi: true }).bindTools(tools);
const lcrHistory = [new HumanMessage(message)];
const lcrAI = await lcr.invoke(lcrHistory);
const lcrCall = lcrAI.tool_calls[0];
lcrHistory.push(lcrAI, new ToolMessage({ tool_call_id: lcrCall.id, content: weather(lcrCall.args) }));
const langchainResponses = { name: lcrCall.name, args: lcrCall.args, answer: (await lcr.invoke(lcrHistory)).text };

process.stdout.write(JSON.stringify({ plain, streamed, runner: runnerResult, langchain, responses, langchainResponses }) + "\n");
