// A client of `gramc serve` written with the Vercel AI SDK (ai and
// @ai-sdk/openai at the versions pinned in package-lock.json): its
// default provider, openai(model), calls the Responses API;
// generateText and streamText with a system prompt, and openai.chat(model)
// on chat completions; it prints the answers as one JSON object on
// standard output:
//
//   {"generated": "...", "streamed": "...", "chat": "..."}
//
// Usage: node ai-sdk-client.mjs BASE_URL MODEL MESSAGE
// The API key is $GRAM_KEY.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";

const [baseURL, model, message] = process.argv.slice(2);
if (!baseURL || !model || !message) {
  console.error("usage: node ai-sdk-client.mjs BASE_URL MODEL MESSAGE");
  process.exit(2);
}
const openai = createOpenAI({ baseURL, apiKey: process.env.GRAM_KEY || "none" });
const system = "Answer in one sentence.";

const generated = (await generateText({ model: openai(model), system, prompt: message, maxRetries: 0 })).text;
let streamed = "";
let failure = null;
const result = streamText({ model: openai(model), system, prompt: message, maxRetries: 0, onError: ({ error }) => { failure = error; } });
for await (const part of result.textStream) streamed += part;
if (failure) throw failure;

const chat = (await generateText({ model: openai.chat(model), system, prompt: message, maxRetries: 0 })).text;

process.stdout.write(JSON.stringify({ generated, streamed, chat }) + "\n");
