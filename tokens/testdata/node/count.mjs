// Reads a JSON array of texts from standard input and prints, for each
// encoding, the number of tokens js-tiktoken (openai-chat-tokens'
// tokenizer) counts in each: {"o200k_base": [...], "cl100k_base": [...]}.
import { getEncoding } from "js-tiktoken";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const texts = JSON.parse(input);
const out = {};
for (const name of ["o200k_base", "cl100k_base"]) {
  const enc = getEncoding(name);
  out[name] = texts.map((t) => enc.encode(t).length);
}
console.log(JSON.stringify(out));
