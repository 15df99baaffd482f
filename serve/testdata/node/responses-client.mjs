// A client of `gramc serve` written with the official OpenAI
// JavaScript/TypeScript library (the `openai` package at the version
// pinned in package-lock.json): it calls responses.create, without and
// with streaming, the library's responses.stream helper, and
// chat.completions.create with a system message, and prints what it got as
// one JSON object on standard output:
//
//   {"plain": {...}, "streamed": {...}, "helper": {...}, "system": {...}, "refused": {...}}
//
// plain has the response's output_text, status and object; streamed the
// text of its deltas, the event types and the completed response's
// output_text; helper the final response's output_text; system the chat
// completion's answer; refused the error the library raised for a request
// with previous_response_id (status, code, param).
//
// Usage: node responses-client.mjs BASE_URL MODEL MESSAGE
// The API key is $GRAM_KEY.
import OpenAI from "openai";

const [baseURL, model, message] = process.argv.slice(2);
if (!baseURL || !model || !message) {
  console.error("usage: node responses-client.mjs BASE_URL MODEL MESSAGE");
  process.exit(2);
}
const client = new OpenAI({ baseURL, apiKey: process.env.GRAM_KEY || "none", maxRetries: 0, timeout: 30_000 });

const r = await client.responses.create({ model, input: message, instructions: "Be kind." });
const plain = { output_text: r.output_text, status: r.status, object: r.object, total_tokens: r.usage?.total_tokens };

const stream = await client.responses.create({
  model,
  stream: true,
  input: [{ role: "user", content: [{ type: "input_text", text: message }] }],
});
let text = "";
const events = [];
let completed = null;
for await (const event of stream) {
  events.push(event.type);
  if (event.type === "response.output_text.delta") text += event.delta;
  if (event.type === "response.completed") completed = event.response;
}
const streamed = { text, events, completed_text: completed?.output?.[0]?.content?.[0]?.text ?? null };

const helperStream = client.responses.stream({ model, input: message });
const final = await helperStream.finalResponse();
const helper = { output_text: final.output_text, status: final.status };

const chat = await client.chat.completions.create({
  model,
  messages: [
    { role: "system", content: "Answer in one sentence." },
    { role: "user", content: message },
  ],
});
const system = { content: chat.choices[0].message.content };

let refused = null;
try {
  await client.responses.create({ model, input: message, previous_response_id: "resp_123" });
} catch (err) {
  refused = { status: err.status, code: err.code, param: err.param, name: err.constructor.name };
}

process.stdout.write(JSON.stringify({ plain, streamed, helper, system, refused }) + "\n");
