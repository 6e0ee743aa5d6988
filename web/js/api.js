// Client for the scribe-trials HTTP API (SPEC.md, "The HTTP API").
//
// Paths are resolved against the page's own URL, so the app works wherever nginx mounts it
// (normally /scribe-trials/). Every call returns parsed JSON or throws an ApiError that carries
// the HTTP status, the API's error code and message, and — for 413/422 — the request field the
// message is about, so a form can show it next to that field.
//
//   import { api } from './api.js';
//   const trials = await api.scripts();
//   try { await api.submit({ script_id, vendor, scribe_output }); }
//   catch (e) { if (e.field === 'vendor') ... }

/** Fields of POST api/submit, in the order a 422 message is searched for them. */
export const SUBMIT_FIELDS = ['scribe_output', 'script_id', 'vendor'];

export class ApiError extends Error {
  constructor(status, code, message, field = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** Absolute URL of an API path, e.g. url('api/scripts'). */
export function url(path) {
  return new URL(path, document.baseURI).href;
}

/** Which submit field an error is about: the API's own `field` if given, else the one its message names. */
function fieldOf(status, error) {
  if (error?.field && SUBMIT_FIELDS.includes(error.field)) return error.field;
  if (status === 413) return 'scribe_output';
  if (status !== 422 && status !== 400) return null;
  const message = String(error?.message ?? '');
  return SUBMIT_FIELDS.find((f) => new RegExp(`\\b${f}\\b`).test(message)) ?? null;
}

async function request(path, { method = 'GET', body, signal } = {}) {
  let response;
  try {
    response = await fetch(url(path), {
      method,
      signal,
      headers: body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'The server could not be reached. Check your connection and try again.');
  }
  let data = null;
  const text = await response.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data?.error ?? {};
    const message = error.message || `The server answered ${response.status} ${response.statusText}.`;
    throw new ApiError(response.status, error.code || `http_${response.status}`, message, fieldOf(response.status, error));
  }
  if (data === null) throw new ApiError(response.status, 'bad_response', 'The server sent a response that is not JSON.');
  return data;
}

const segment = (value) => encodeURIComponent(value).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export const api = {
  health: (opts) => request('health', opts),
  scripts: (opts) => request('api/scripts', opts),
  script: (id, opts) => request(`api/scripts/${segment(id)}`, opts),
  submit: (submission, opts) => request('api/submit', { ...opts, method: 'POST', body: submission }),
  submission: (id, opts) => request(`api/submissions/${segment(id)}`, opts),
  leaderboard: (opts) => request('api/leaderboard', opts),
  vendor: (vendor, before, opts) => request(`api/vendors/${segment(vendor)}${before ? `?before=${encodeURIComponent(before)}` : ''}`, opts),
  vendorTrials: (vendor, opts) => request(`api/vendors/${segment(vendor)}/trials`, opts),
  methodology: (opts) => request('api/methodology', opts),
  /** Absolute badge URL; parentheses are escaped too so the URL survives inside Markdown links. */
  badgeUrl: (vendor) => url(`api/badge/${segment(vendor)}.svg`),
};

/** Absolute URL of an app route, e.g. appUrl('#/submissions/abc'). */
export function appUrl(hash) {
  const base = new URL(document.baseURI);
  base.hash = hash;
  return base.href;
}
