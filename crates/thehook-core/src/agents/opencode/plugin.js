// thehook's plugin for opencode: project memory at each session's model
// requests, what memory knows of each prompt and of each file the agent
// reads or edits, and the session captured when opencode closes.
// __MARKER__
// It runs the thehook program below as opencode's hooks would run a
// command (JSON on stdin, JSON on stdout) and never throws: without thehook,
// opencode works as before.
import { spawn } from "node:child_process";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const THEHOOK = __THEHOOK_BIN__;
const AGENT = "opencode";
/** Whether each prompt is looked up (the config's `retrieval.on_prompt` when thehook was set up). */
const ON_PROMPT = __ON_PROMPT__;
/** Whether each file the agent reads or edits is looked up (`retrieval.on_file`). */
const ON_FILE = __ON_FILE__;
/** opencode's tools that name one file in `filePath`. */
const FILE_TOOLS = ["read", "edit", "write"];
/** How long a hook may take before opencode goes on without it. */
const TIMEOUT_MS = 10000;
/** The first words of opencode's title-generation request, which gets no memory. */
const TITLE_REQUEST = "You are a title generator";

/** Runs `thehook <sub> --agent opencode` with `payload` on stdin; its JSON answer, or null. */
function run(sub, payload) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(THEHOOK, [sub, "--agent", AGENT], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve(null);
    }
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    child.stdout.on("data", (d) => (out += d));
    child.on("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(out.trim() ? JSON.parse(out) : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

/** Where this plugin keeps each session's transcript, for thehook to read and sweep. */
function sessionsFolder() {
  const data = process.env.XDG_DATA_HOME || join(homedir(), ".local", "share");
  return join(data, "thehook", "opencode");
}

export default {
  id: "thehook",
  server: async ({ client, directory }) => {
    const memory = new Map(); // session id -> Promise of the text to add (or null)
    const created = new Set(); // sessions started in this process (others are resumed)
    const touched = new Set(); // sessions that ran a turn here, captured on exit
    const pending = new Set();
    const subagent = new Map(); // session id -> Promise of whether a subagent runs it
    const payload = (sessionID, event) => ({ session_id: sessionID, cwd: directory, hook_event_name: event });

    /** Writes the session as `opencode export` prints it; its path, or null for a subagent's. */
    async function save(sessionID) {
      const info = (await client.session.get({ path: { id: sessionID } })).data;
      if (!info || info.parentID) return null;
      const messages = (await client.session.messages({ path: { id: sessionID } })).data ?? [];
      const folder = sessionsFolder();
      mkdirSync(folder, { recursive: true });
      const file = join(folder, `${sessionID}.json`);
      writeFileSync(`${file}.tmp`, JSON.stringify({ info, messages }));
      renameSync(`${file}.tmp`, file);
      return file;
    }

    async function capture(sessionID) {
      const file = await save(sessionID);
      if (file) await run("capture", { ...payload(sessionID, "SessionEnd"), transcript_path: file, reason: "exit" });
    }

    return {
      event: async ({ event }) => {
        if (event.type === "session.created") created.add(event.properties.sessionID ?? event.properties.info?.id);
        if (event.type === "session.idle") {
          // After every turn: kept for the sweep, in case opencode never closes cleanly.
          const id = event.properties.sessionID;
          touched.add(id);
          const saved = save(id).catch(() => null);
          pending.add(saved);
          saved.finally(() => pending.delete(saved));
        }
      },

      // opencode rebuilds the system prompt for every model request: memory
      // is looked up once per session and added to each of its requests.
      "experimental.chat.system.transform": async (input, output) => {
        const id = input.sessionID;
        if (!id || output.system.some((s) => s.startsWith(TITLE_REQUEST))) return;
        if (!memory.has(id)) {
          const source = created.has(id) ? "startup" : "resume";
          const answer = run("retrieve", { ...payload(id, "SessionStart"), source });
          memory.set(id, answer.then((a) => a?.additionalContext ?? null));
        }
        const text = await memory.get(id);
        if (text) output.system.push(text);
      },

      // Each prompt: what memory knows of it, as a part of the message that
      // the person did not type (opencode marks it synthetic).
      "chat.message": async (input, output) => {
        if (!ON_PROMPT) return;
        const typed = output.parts.filter((p) => p.type === "text" && !p.synthetic);
        const prompt = typed.map((p) => p.text).join("\n").trim();
        if (!prompt) return;
        const answer = await run("prompt", { ...payload(input.sessionID, "UserPromptSubmit"), prompt });
        const text = answer?.additionalContext;
        if (!text) return;
        const last = output.parts[output.parts.length - 1];
        output.parts.push({
          id: `${last.id}thehook`,
          sessionID: input.sessionID,
          messageID: output.message.id,
          type: "text",
          text,
          synthetic: true,
        });
      },

      // Each file tool call: what memory knows of the file, appended to the
      // tool's output (its before hook can only block the tool).
      "tool.execute.after": async (input, output) => {
        if (!ON_FILE || typeof output?.output !== "string") return;
        const path = FILE_TOOLS.includes(input.tool)
          ? input.args?.filePath
          : input.tool === "apply_patch"
            ? output.metadata?.files?.[0]?.filePath
            : null;
        if (typeof path !== "string" || !path) return;
        const id = input.sessionID;
        if (!subagent.has(id)) {
          const info = client.session.get({ path: { id } });
          subagent.set(id, info.then((r) => Boolean(r.data?.parentID)).catch(() => false));
        }
        const answer = await run("file", {
          ...payload(id, "PostToolUse"),
          tool_name: input.tool,
          tool_input: { file_path: path },
          ...((await subagent.get(id)) ? { agent_id: id } : {}),
        });
        const text = answer?.additionalContext;
        if (text) output.output += `\n\n${text}`;
      },

      // opencode has no session-end event: its exit ends the sessions that ran here.
      dispose: async () => {
        await Promise.allSettled([...pending]);
        await Promise.allSettled([...touched].map((id) => capture(id).catch(() => null)));
      },
    };
  },
};
