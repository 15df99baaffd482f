// Reads a JSON array of cases from standard input, each an array of
// OpenAI function definitions, and prints, for each, the estimate of
// openai-chat-tokens: functionsTokensEstimate (the namespace rendering on
// cl100k_base and the 9 tokens of its framing).
import { functionsTokensEstimate } from "openai-chat-tokens";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
console.log(JSON.stringify(cases.map((fns) => functionsTokensEstimate(fns))));
