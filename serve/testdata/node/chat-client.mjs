// A chat UI's side of `gramc serve`, written with the official OpenAI
// JavaScript/TypeScript library (the `openai` package at the version
// pinned in package-lock.json): it calls chat.completions.create against
// the server, without and with streaming, and prints what it got as one
// JSON object on standard output:
//
//   {"models": [...], "plain": {...}, "streamed": {...}, "refused": {...}}
//
// plain and streamed have the answer's text and finish reason; streamed
// also the number of chunks and the usage; refused is the error the
// library raised for a request with a tool named as one of the agent's
// (status, code, message).
//
// Usage: node chat-client.mjs BASE_URL MODEL MESSAGE
// The API key is $GRAM_KEY.
import OpenAI from "openai";

const [baseURL, model, message] = process.argv.slice(2);
if (!baseURL || !model || !message) {
  console.error("usage: node chat-client.mjs BASE_URL MODEL MESSAGE");
  process.exit(2);
}
const client = new OpenAI({ baseURL, apiKey: process.env.GRAM_KEY || "none", maxRetries: 0, timeout: 30_000 });

const models = (await client.models.list()).data.map((m) => m.id);

const history = [{ role: "user", content: message }];
const done = await client.chat.completions.create({ model, messages: history });
const plain = {
  content: done.choices[0].message.content,
  finish: done.choices[0].finish_reason,
  usage: done.usage,
  object: done.object,
};

// The next turn carries the conversation so far, as a chat UI sends it.
const next = [...history, { role: "assistant", content: plain.content }, { role: "user", content: message }];
const stream = await client.chat.completions.create({ model, messages: next, stream: true, stream_options: { include_usage: true } });
let text = "";
let chunks = 0;
let finish = null;
let usage = null;
for await (const chunk of stream) {
  chunks++;
  for (const choice of chunk.choices) {
    text += choice.delta?.content ?? "";
    finish = choice.finish_reason ?? finish;
  }
  usage = chunk.usage ?? usage;
}
const streamed = { content: text, finish, chunks, usage };

let refused = null;
try {
  await client.chat.completions.create({
    model,
    messages: history,
    tools: [{ type: "function", function: { name: "sayHello", parameters: { type: "object" } } }],
  });
} catch (err) {
  refused = { status: err.status, code: err.code, type: err.type, param: err.param, message: err.message, name: err.constructor.name };
}

process.stdout.write(JSON.stringify({ models, plain, streamed, refused }) + "\n");
