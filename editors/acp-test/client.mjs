// The official ACP TypeScript client (@agentclientprotocol/sdk, pinned in
// package.json) driving `agentls acp` against a fake model, run by
// cmd/agentls/acp_client_test.go:
//
//   prompt → streamed thinking and text → a two-file patch shown as diffs
//   and written through fs/write_text_file → a shell command asked through
//   session/request_permission (rejected: nothing runs; then allowed: it
//   runs) → cancel mid-reply → /undo → session/load in a new agentls →
//   a client with terminals, in review mode: an image in the prompt, the
//   model's plan as plan updates, its command in the client's terminal,
//   its patch held until /review accept all.
//
// Every message agentls sends is checked against the protocol's schema,
// twice, by method (requests and notifications by theirs, responses by
// the method of the request they answer): against the ACP JSON schema the
// package ships (schema/v1/schema.json, with ajv), and against the SDK's
// own zod schemas (which the SDK also applies to what its handlers
// receive, but which let some values through that the JSON schema does
// not, such as an unknown tool kind).
//
// Usage: AGENTLS_BIN=path node client.mjs WORKSPACE
// (the model and state folders come from the environment). Prints one
// JSON summary line on success; exits 1 naming the first failed check.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import * as z from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import Ajv2020 from "ajv/dist/2020.js";
import { createRequire } from "node:module";

const root = process.argv[2];
const bin = process.env.AGENTLS_BIN;
if (!root || !bin) {
  console.error("usage: AGENTLS_BIN=path node client.mjs WORKSPACE");
  process.exit(2);
}

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
}

// What each message agentls may send must look like: its $defs name in
// the JSON schema, and its zod schema.
const requestSchemas = {
  "session/request_permission": "RequestPermissionRequest",
  "fs/write_text_file": "WriteTextFileRequest",
  "fs/read_text_file": "ReadTextFileRequest",
  "terminal/create": "CreateTerminalRequest",
  "terminal/output": "TerminalOutputRequest",
  "terminal/wait_for_exit": "WaitForTerminalExitRequest",
  "terminal/kill": "KillTerminalRequest",
  "terminal/release": "ReleaseTerminalRequest",
};
const notificationSchemas = { "session/update": "SessionNotification" };
const responseSchemas = {
  initialize: "InitializeResponse",
  "session/new": "NewSessionResponse",
  "session/prompt": "PromptResponse",
  "session/load": "LoadSessionResponse",
  "session/set_config_option": "SetSessionConfigOptionResponse",
};
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
ajv.addSchema(createRequire(import.meta.url)("@agentclientprotocol/sdk/schema/v1/schema.json"), "acp");

// The checker is honest: it refuses what the protocol does not allow.
check(!ajv.getSchema("acp#/$defs/SessionNotification")({ sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "c", title: "t", kind: "bogus" } }),
  "the JSON schema refuses an unknown tool kind");
check(!ajv.getSchema("acp#/$defs/PromptResponse")({ stopReason: "done" }), "the JSON schema refuses an unknown stop reason");

// session/update notifications seen on the wire, and handled: the SDK
// runs notification handlers asynchronously, so a prompt's answer can
// resolve before the updates sent ahead of it were handled.
let wireUpdates = 0;
let handledUpdates = 0;
async function settle() {
  for (let i = 0; handledUpdates < wireUpdates; i++) {
    check(i < 10000, `${wireUpdates - handledUpdates} session/update notifications never reached the handler`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
let validated = 0;
const invalid = [];

function validate(line, sentMethods) {
  if (process.env.ACP_DEBUG) console.error("<<", line.slice(0, 200));
  if (line.includes('"method":"session/update"')) wireUpdates++;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    invalid.push(`not JSON: ${line}`);
    return;
  }
  if (msg.jsonrpc !== "2.0") invalid.push(`no jsonrpc 2.0: ${line}`);
  let schema, what;
  if (msg.method !== undefined && msg.id !== undefined) {
    schema = requestSchemas[msg.method];
    what = `request ${msg.method}`;
  } else if (msg.method !== undefined) {
    schema = notificationSchemas[msg.method];
    what = `notification ${msg.method}`;
  } else if (msg.error !== undefined) {
    schema = "Error";
    what = `error answering ${sentMethods.get(msg.id)}`;
    msg.params = msg.error;
  } else {
    schema = responseSchemas[sentMethods.get(msg.id)];
    what = `response to ${sentMethods.get(msg.id)}`;
    msg.params = msg.result;
  }
  if (!schema) {
    invalid.push(`${what}: not a message agentls should send: ${line}`);
    return;
  }
  const json = ajv.getSchema(`acp#/$defs/${schema}`);
  if (!json(msg.params)) invalid.push(`${what}: not a ${schema} of the JSON schema: ${ajv.errorsText(json.errors)}\n${line}`);
  const r = z[`z${schema}`].safeParse(msg.params);
  if (!r.success) invalid.push(`${what}: not a ${schema} of the SDK's zod schema: ${r.error.message}\n${line}`);
  validated++;
}

// Lines of a byte stream, to fn.
function lines(fn) {
  let buf = "";
  const dec = new TextDecoder();
  return (chunk) => {
    buf += dec.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line) fn(line);
    }
  };
}

// startAgent starts `agentls acp` and returns the stream the SDK talks
// over, every line agentls sends validated on the way.
function startAgent() {
  const child = spawn(bin, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
  const exit = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const sentMethods = new Map(); // id of our request → its method
  const fromAgent = lines((line) => validate(line, sentMethods));
  let reading = true; // until the SDK closes its side
  const input = new ReadableStream({
    start(controller) {
      child.stdout.on("data", (chunk) => {
        fromAgent(chunk);
        if (reading) controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on("end", () => {
        if (reading) controller.close();
        reading = false;
      });
    },
    cancel() {
      // The SDK is done reading (the connection closed): the tap goes on
      // validating what agentls still sends.
      reading = false;
    },
  });
  // SDK → agentls, our requests' ids remembered for their responses.
  const toAgent = lines((line) => {
    const msg = JSON.parse(line);
    if (msg.method !== undefined && msg.id !== undefined) sentMethods.set(msg.id, msg.method);
  });
  const output = new WritableStream({
    write(chunk) {
      toAgent(chunk);
      return new Promise((resolve, reject) => child.stdin.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
    close() {
      child.stdin.end();
    },
  });
  return { child, exit, stream: ndJsonStream(output, input) };
}

// The editor's buffers: read from disk on first use, written in memory
// (an editor writes its buffer; the user saves it).
const buffers = new Map();
const writes = [];
const asked = [];
let answers = [];
let updates = [];
let onUpdate = () => {};
let commandsOffered = [];
const terminals = new Map();

const makeApp = () => client({ name: "agentls-acp-test" })
  .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
    check(path.isAbsolute(params.path), `read_text_file path ${params.path} is absolute`);
    if (!buffers.has(params.path)) buffers.set(params.path, await readFile(params.path, "utf8"));
    return { content: buffers.get(params.path) };
  })
  .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
    check(params.path.startsWith(root + path.sep), `write_text_file ${params.path} is inside the workspace`);
    buffers.set(params.path, params.content);
    writes.push(path.relative(root, params.path));
    return {};
  })
  .onRequest(methods.client.session.requestPermission, async ({ params }) => {
    asked.push(params);
    const answer = answers.shift();
    if (answer === "reject") check(!existsSync(path.join(root, "made")), "nothing ran before the question was answered");
    const kind = answer === "allow" ? "allow_once" : "reject_once";
    const opt = params.options.find((o) => o.kind === kind);
    check(opt, `an option of kind ${kind} among ${JSON.stringify(params.options)}`);
    return { outcome: { outcome: "selected", optionId: opt.optionId } };
  })
  // Terminals: each runs its command for real (the editor's terminal
  // panel), its output kept for terminal/output.
  .onRequest(methods.client.terminal.create, async ({ params }) => {
    check(params.cwd === root, `terminal/create runs in the workspace: ${params.cwd}`);
    const id = `term-${terminals.size + 1}`;
    const env = { ...process.env, ...Object.fromEntries((params.env ?? []).map((e) => [e.name, e.value])) };
    const child = spawn(params.command, params.args ?? [], { cwd: params.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const t = { params, output: "", released: false, child };
    t.exit = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ exitCode: code, signal })));
    child.stdout.on("data", (d) => (t.output += d));
    child.stderr.on("data", (d) => (t.output += d));
    terminals.set(id, t);
    return { terminalId: id };
  })
  .onRequest(methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId).exit)
  .onRequest(methods.client.terminal.output, async ({ params }) => {
    const t = terminals.get(params.terminalId);
    return { output: t.output, truncated: false };
  })
  .onRequest(methods.client.terminal.kill, async ({ params }) => {
    terminals.get(params.terminalId).child.kill("SIGKILL");
    return {};
  })
  .onRequest(methods.client.terminal.release, async ({ params }) => {
    const t = terminals.get(params.terminalId);
    t.child.kill("SIGKILL");
    t.released = true;
    return {};
  })
  .onNotification(methods.client.session.update, async ({ params }) => {
    updates.push(params.update);
    handledUpdates++;
    if (params.update.sessionUpdate === "available_commands_update") commandsOffered = params.update.availableCommands.map((c) => c.name);
    onUpdate(params.update);
  });

function text(kind) {
  return updates
    .filter((u) => u.sessionUpdate === kind && u.content?.type === "text")
    .map((u) => u.content.text)
    .join("");
}

// calls folds tool_call and tool_call_update into each call's last state.
function calls() {
  const byId = new Map();
  for (const u of updates) {
    if (u.sessionUpdate === "tool_call") byId.set(u.toolCallId, { ...u });
    if (u.sessionUpdate === "tool_call_update") Object.assign(byId.get(u.toolCallId) ?? {}, Object.fromEntries(Object.entries(u).filter(([, v]) => v != null)));
  }
  return [...byId.values()];
}

const initParams = {
  protocolVersion: PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
  clientInfo: { name: "agentls-acp-test", version: "0" },
};
const summary = {};
const agents = [];
let sessionId;
try {
  const first = startAgent();
  agents.push(first);
  await makeApp().connectWith(first.stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, initParams);
    check(init.protocolVersion === 1, "protocol version 1");
    check(init.agentInfo?.name === "agentls", "agentInfo names agentls");
    check(init.agentCapabilities.promptCapabilities?.embeddedContext === true, "embedded context offered");
    check(init.agentCapabilities.loadSession === true, "session/load offered");
    const created = await ctx.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    sessionId = created.sessionId;
    const model = created.configOptions?.find((o) => o.id === "model");
    check(model?.type === "select" && model.currentValue === "m", `the model option: ${JSON.stringify(created.configOptions)}`);
    const set = await ctx.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "m" });
    check(set.configOptions[0].currentValue === "m", `set_config_option: ${JSON.stringify(set)}`);
    const prompt = async (t) => {
      const r = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: t }] });
      await settle();
      return r;
    };

    // 1. Streamed thinking and text.
    updates = [];
    let r = await prompt("Say hello");
    check(r.stopReason === "end_turn", `hello: stopReason ${r.stopReason}`);
    check(text("agent_thought_chunk") === "Thinking it over.", `thought chunks: ${text("agent_thought_chunk")}`);
    check(text("agent_message_chunk") === "Hello from agentls.", `message chunks: ${text("agent_message_chunk")}`);
    summary.chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").length;

    // 2. A two-file patch: one edit call, a diff per file, both written
    // through fs/write_text_file.
    updates = [];
    r = await prompt("Capitalise a.txt and b.txt");
    check(r.stopReason === "end_turn", `patch: stopReason ${r.stopReason}`);
    const edit = calls().find((c) => c.kind === "edit");
    check(edit && edit.status === "completed", `edit call completed: ${JSON.stringify(calls())}`);
    const diffs = edit.content.filter((c) => c.type === "diff");
    check(diffs.length === 2, `two diffs: ${JSON.stringify(edit.content)}`);
    check(diffs[0].path === path.join(root, "a.txt") && diffs[0].oldText === "one\n" && diffs[0].newText === "ONE\n", `a.txt diff ${JSON.stringify(diffs[0])}`);
    check(diffs[1].path === path.join(root, "b.txt") && diffs[1].oldText === "two\n" && diffs[1].newText === "TWO\n", `b.txt diff ${JSON.stringify(diffs[1])}`);
    check(edit.locations?.length === 2, "the edit's locations name both files");
    check(writes.join(",") === "a.txt,b.txt", `written through the client: ${writes}`);
    check(buffers.get(path.join(root, "a.txt")) === "ONE\n", "a.txt's buffer changed");
    summary.writes = [...writes];

    // 3. A command that needs approval, rejected: nothing runs.
    updates = [];
    answers = ["reject"];
    r = await prompt("Make a file");
    check(r.stopReason === "end_turn", `reject: stopReason ${r.stopReason}`);
    check(asked.length === 1, `asked once: ${asked.length}`);
    check(asked[0].options.map((o) => o.kind).join(",") === "allow_once,allow_always,reject_once,reject_always", `options ${JSON.stringify(asked[0].options)}`);
    const rejected = calls().find((c) => c.kind === "execute");
    check(rejected && rejected.status === "failed" && asked[0].toolCall.toolCallId === rejected.toolCallId, `rejected call: ${JSON.stringify(rejected)}`);
    check(!existsSync(path.join(root, "made")), "the rejected command did not run");

    // 4. The same command, allowed: it runs, its output in the call.
    updates = [];
    answers = ["allow"];
    r = await prompt("Make it now, I allow it");
    check(r.stopReason === "end_turn", `allow: stopReason ${r.stopReason}`);
    const ran = calls().find((c) => c.kind === "execute");
    check(ran && ran.status === "completed", `allowed call: ${JSON.stringify(ran)}`);
    check(JSON.stringify(ran.content).includes("made it"), `its output: ${JSON.stringify(ran.content)}`);
    check(existsSync(path.join(root, "made")), "the allowed command ran");
    summary.asked = asked.length;

    // 5. Cancel mid-reply: the prompt ends "cancelled", promptly.
    updates = [];
    let cancelledAt = 0;
    onUpdate = (u) => {
      if (u.sessionUpdate === "agent_message_chunk" && !cancelledAt) {
        cancelledAt = Date.now();
        ctx.notify(methods.agent.session.cancel, { sessionId });
      }
    };
    r = await prompt("Write a long essay");
    check(r.stopReason === "cancelled", `cancel: stopReason ${r.stopReason}`);
    check(cancelledAt > 0, "a chunk arrived before the cancel");
    summary.cancelMs = Date.now() - cancelledAt;
    onUpdate = () => {};

    // 6. /undo, offered as a slash command, puts the patched files back
    // through fs/write_text_file.
    check(commandsOffered.includes("undo"), `available commands: ${commandsOffered}`);
    updates = [];
    r = await prompt("/undo");
    check(r.stopReason === "end_turn", `undo: stopReason ${r.stopReason}`);
    check(buffers.get(path.join(root, "a.txt")) === "one\n" && buffers.get(path.join(root, "b.txt")) === "two\n", `undone: ${[...buffers.values()]}`);
    const undo = calls().find((c) => c.kind === "edit");
    check(undo && undo.status === "completed" && undo.content.filter((c) => c.type === "diff").length === 2, `undo call ${JSON.stringify(undo)}`);
    summary.undone = writes.slice(2);

    // /redo makes the undone edits again, through the client too.
    check(commandsOffered.includes("redo"), `available commands: ${commandsOffered}`);
    updates = [];
    r = await prompt("/redo");
    check(r.stopReason === "end_turn", `redo: stopReason ${r.stopReason}`);
    check(buffers.get(path.join(root, "a.txt")) === "ONE\n" && buffers.get(path.join(root, "b.txt")) === "TWO\n", `redone: ${[...buffers.values()]}`);
  });
  first.child.stdin.end();
  summary.exit = (await first.exit).code;

  // 7. session/load in a new agentls: the session's turns replayed, the
  // prompts as the user's messages.
  const second = startAgent();
  agents.push(second);
  await makeApp().connectWith(second.stream, async (ctx) => {
    await ctx.request(methods.agent.initialize, initParams);
    updates = [];
    await ctx.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
    await settle();
    const prompts = updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    check(prompts.join("|") === "Say hello|Capitalise a.txt and b.txt|Make a file|Make it now, I allow it|Write a long essay", `replayed prompts: ${prompts.join("|")}`);
    check(text("agent_message_chunk").startsWith("Hello from agentls."), `replayed text: ${text("agent_message_chunk")}`);
    check(calls().some((c) => c.kind === "edit" && c.status === "completed"), "the patch's call replayed");
    summary.replayed = updates.length;
  });
  second.child.stdin.end();
  await second.exit;

  // 8. A client with terminals, in review mode, with an image: the plan
  // the model writes is shown as plan updates; its command, allowed,
  // runs in the client's terminal, embedded in the call and released;
  // its patch waits as pending hunks until /review accept all writes it
  // through fs/write_text_file.
  const third = startAgent();
  agents.push(third);
  await makeApp().connectWith(third.stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, { ...initParams, clientCapabilities: { ...initParams.clientCapabilities, terminal: true } });
    check(init.agentCapabilities.promptCapabilities?.image === true, "images offered");
    const created = await ctx.request(methods.agent.session.new, { cwd: root, mcpServers: [] });
    const sid = created.sessionId;
    const set = await ctx.request(methods.agent.session.setConfigOption, { sessionId: sid, configId: "edits", value: "review" });
    check(set.configOptions.find((o) => o.id === "edits")?.currentValue === "review", `edits option: ${JSON.stringify(set.configOptions)}`);
    const prompt = async (blocks) => {
      const r = await ctx.request(methods.agent.session.prompt, { sessionId: sid, prompt: blocks });
      await settle();
      return r;
    };
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    updates = [];
    answers = ["allow"];
    let r = await prompt([{ type: "text", text: "Look at this, then run it" }, { type: "image", data: png, mimeType: "image/png" }]);
    check(r.stopReason === "end_turn", `terminal: stopReason ${r.stopReason}`);
    const plans = updates.filter((u) => u.sessionUpdate === "plan");
    check(plans.length > 0 && plans.at(-1).entries.map((e) => `${e.status}:${e.content}`).join("|") === "completed:run it|completed:report", `plans: ${JSON.stringify(plans)}`);
    const ran = calls().find((c) => c.kind === "execute");
    check(ran && ran.status === "completed" && ran.content.some((c) => c.type === "terminal" && c.terminalId === "term-1"), `terminal call: ${JSON.stringify(ran)}`);
    const term = terminals.get("term-1");
    check(term?.released && term.output.includes("from the terminal"), `terminal: ${JSON.stringify(term?.params)} released ${term?.released} output ${term?.output}`);
    summary.terminals = terminals.size;
    summary.plans = plans.length;

    updates = [];
    const before = writes.length;
    r = await prompt([{ type: "text", text: "Capitalise c.txt" }]);
    check(r.stopReason === "end_turn", `review: stopReason ${r.stopReason}`);
    check(writes.length === before, `review mode wrote ${writes.slice(before)}`);
    check(commandsOffered.includes("review"), `available commands: ${commandsOffered}`);
    updates = [];
    r = await prompt([{ type: "text", text: "/review accept all" }]);
    check(r.stopReason === "end_turn", `/review: stopReason ${r.stopReason}`);
    check(writes.slice(before).join(",") === "c.txt" && buffers.get(path.join(root, "c.txt")) === "THREE\n", `accepted: ${writes.slice(before)}`);
    summary.reviewed = writes.slice(before);
  });
  third.child.stdin.end();
  await third.exit;
} catch (e) {
  console.error(String(e?.stack ?? e));
  for (const a of agents) a.child.kill();
  process.exit(1);
}
if (invalid.length > 0) {
  console.error(`${invalid.length} messages from agentls do not match the ACP schema:\n${invalid.join("\n")}`);
  process.exit(1);
}
summary.validated = validated;
console.log(JSON.stringify(summary));
