// A model server for the real agent CLIs, on 127.0.0.1 only: Anthropic
// Messages (Claude Code, and `claude -p` as thehook's LLM CLI), OpenAI
// Responses (Codex), Gemini's streamGenerateContent (Gemini CLI) and OpenAI
// Chat Completions (Copilot CLI and opencode, with a provider of their own), each
// streamed as the CLI expects it (the minimal event sequences were found by
// running each CLI against it; see docs/agents.md, "Tested with the real
// agents"). Every request is kept, with the text of its messages, so a test
// can ask what reached the model. Bounded: it refuses requests past
// `maxRequests`, and closes itself after `maxSeconds`.

import http from 'node:http';

/**
 * Starts the server. `answer(text, api, body)` returns the reply to a request
 * whose messages read `text` (`api` is 'anthropic', 'openai', 'gemini' or 'chat'):
 * a string, or `{ tool: name, input }` for a tool call (with `namespace`, a
 * tool of an OpenAI Responses namespace, as Codex's `multi_agent_v1`).
 * Resolves to { url, requests, close() }; `requests` grows as they arrive:
 * { api, path, body, text }.
 */
export function startMockModel({ answer, maxRequests = 200, maxSeconds = 900 }) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        body = {};
      }
      const url = new URL(req.url, 'http://127.0.0.1');
      const api = apiOf(req.method, url.pathname);
      if (requests.length >= maxRequests) {
        return json(res, { error: { message: 'mock model: request limit reached' } }, 429);
      }
      const text = api ? textOf(api, body) : '';
      requests.push({ api, path: url.pathname, body, text });
      if (api === 'anthropic') return anthropic(res, body, answer(text, api, body));
      if (api === 'openai') return openai(res, body, answer(text, api, body));
      if (api === 'gemini') return gemini(res, url, body, answer(text, api, body));
      if (api === 'chat') return chat(res, body, answer(text, api, body));
      return json(res, {});
    });
  });
  const timer = setTimeout(() => server.close(), maxSeconds * 1000);
  timer.unref();
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        requests,
        close: () =>
          new Promise((done) => {
            clearTimeout(timer);
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function apiOf(method, path) {
  if (method !== 'POST') return null;
  if (/\/v1\/messages$/.test(path)) return 'anthropic';
  if (/\/responses$/.test(path)) return 'openai';
  if (/\/models\/[^/:]+:streamGenerateContent$/.test(path)) return 'gemini';
  if (/\/chat\/completions$/.test(path)) return 'chat';
  return null;
}

/** Every piece of text in a request's prompt: system, messages, instructions. */
function textOf(api, body) {
  const out = [];
  const walk = (v) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const key of ['text', 'content', 'parts', 'input', 'system', 'messages', 'contents', 'systemInstruction']) {
        if (key in v) walk(v[key]);
      }
    }
  };
  if (api === 'anthropic') walk([body.system, body.messages]);
  if (api === 'openai') walk([body.instructions, body.input]);
  if (api === 'gemini') walk([body.systemInstruction, body.contents]);
  if (api === 'chat') walk(body.messages);
  return out.join('\n');
}

function json(res, obj, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) {
    if (event) res.write(`event: ${event}\n`);
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function anthropic(res, body, reply) {
  const message = { id: 'msg_mock', type: 'message', role: 'assistant', model: body.model || 'mock' };
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (typeof reply === 'object') return anthropicToolUse(res, body, message, usage, reply);
  if (!body.stream) {
    return json(res, { ...message, content: [{ type: 'text', text: reply }], stop_reason: 'end_turn', stop_sequence: null, usage });
  }
  sse(res, [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

/** A streamed turn that calls one tool. */
let toolUses = 0;
function anthropicToolUse(res, body, message, usage, { tool, input }) {
  const id = `toolu_mock_${++toolUses}`;
  sse(res, [
    ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name: tool, input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

let calls = 0;
function openai(res, body, reply) {
  const item = typeof reply === 'object'
    ? { type: 'function_call', id: `fc_mock_${++calls}`, call_id: `call_mock_${calls}`, name: reply.tool, ...(reply.namespace && { namespace: reply.namespace }), arguments: JSON.stringify(reply.input), status: 'completed' }
    : {
      type: 'message', id: 'msg_mock', role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: reply, annotations: [] }],
    };
  const response = {
    id: 'resp_mock', object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model || 'mock',
    status: 'completed', output: [item],
    usage: {
      input_tokens: 10, input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15,
    },
  };
  if (body.stream === false) return json(res, response);
  sse(res, [
    ['response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response }],
  ]);
}

function gemini(res, url, body, reply) {
  const parts = typeof reply === 'object' ? [{ functionCall: { name: reply.tool, args: reply.input } }] : [{ text: reply }];
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  };
  if (url.searchParams.get('alt') === 'sse') return sse(res, [[null, chunk]]);
  json(res, [chunk]);
}

function chat(res, body, reply) {
  const chunk = (choices, extra = {}) => ({
    id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000),
    model: body.model || 'mock', choices, ...extra,
  });
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (typeof reply === 'object') {
    const toolCalls = [{ index: 0, id: `call_mock_${++calls}`, type: 'function', function: { name: reply.tool, arguments: JSON.stringify(reply.input) } }];
    if (!body.stream) {
      return json(res, {
        id: 'chatcmpl-mock', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model || 'mock',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }], usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const data of [
      chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
      chunk([], { usage }),
    ]) res.write(`data: ${JSON.stringify(data)}\n\n`);
    return res.end('data: [DONE]\n\n');
  }
  if (!body.stream) {
    return json(res, {
      id: 'chatcmpl-mock', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model || 'mock',
      choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }], usage,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const data of [
    chunk([{ index: 0, delta: { role: 'assistant', content: reply }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    chunk([], { usage }),
  ]) res.write(`data: ${JSON.stringify(data)}\n\n`);
  res.end('data: [DONE]\n\n');
}
