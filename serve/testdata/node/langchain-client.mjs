// A client of `gramc serve` written with LangChain (@langchain/openai at
// the version pinned in package-lock.json): ChatOpenAI with
// useResponsesApi, so it calls the Responses API, invoked and streamed
// with a SystemMessage, and ChatOpenAI on chat completions with a
// SystemMessage; it prints the answers as one JSON object on standard
// output:
//
//   {"responses": "...", "streamed": "...", "chat": "..."}
//
// Usage: node langchain-client.mjs BASE_URL MODEL MESSAGE
// The API key is $GRAM_KEY.
import { ChatOpenAI } from "@langchain/openai";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";

const [baseURL, model, message] = process.argv.slice(2);
if (!baseURL || !model || !message) {
  console.error("usage: node langchain-client.mjs BASE_URL MODEL MESSAGE");
  process.exit(2);
}
const options = { model, apiKey: process.env.GRAM_KEY || "none", maxRetries: 0, configuration: { baseURL } };
const messages = [new SystemMessage("Answer in one sentence."), new HumanMessage(message)];

const responsesModel = new ChatOpenAI({ ...options, useResponsesApi: true });
const responses = (await responsesModel.invoke(messages)).text;
let streamed = "";
for await (const chunk of await responsesModel.stream(messages)) streamed += chunk.text;

const chat = (await new ChatOpenAI(options).invoke(messages)).text;

process.stdout.write(JSON.stringify({ responses, streamed, chat }) + "\n");
