// Reads a JSON list of Mermaid texts on standard input and prints, for each, null when
// Mermaid's parser accepts it or the parser's message when it does not.
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try {
    const parsed = await mermaid.parse(text);
    results.push(parsed && parsed.diagramType ? null : "not recognised as a diagram");
  } catch (error) {
    results.push(String(error.message || error));
  }
}
process.stdout.write(JSON.stringify(results));
