// Reads a JSON list of Mermaid sources on stdin; prints the diagram type mermaid's own
// parser finds for each (exit 1 with the parser's message on the first error).
import { JSDOM } from "jsdom";
const dom = new JSDOM("<!DOCTYPE html><body></body>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const src of JSON.parse(input)) {
  const r = await mermaid.parse(src);
  out.push(r.diagramType);
}
console.log(JSON.stringify(out));
