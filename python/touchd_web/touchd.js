// touchd.js — a web page as a touchd client (docs/web.md; interface "Web pages as clients").
// An ES module, no build step, served by touchd-web at /touchd.js; typed by touchd.d.ts.
//
//   import { TouchdClient } from "/touchd.js";
//   const ui = new TouchdClient();            // ws(s)://<this host>/socket, token from location.hash
//   const hello = await ui.connect();
//   const w = await ui.bind(document.body, { window: "menu" });
//   document.getElementById("ok").addEventListener("touchd:primaryactiontriggered", e => …);
//
// The protocol is the daemon's socket protocol unchanged (docs/protocol.md): one JSON object per
// WebSocket text message. The API is the Python client's (python/touchd_client) in camelCase:
// requests resolve with their reply and reject with a TouchdError; callbacks get each message;
// every touch that began ends (cancelled "disconnected" when the connection goes, "overflow" or
// "subscribe" when a snapshot no longer lists it); after a reconnect the subscription and every
// window are sent again as they are now, and bound elements are measured again.

const REPLY_TYPES = new Set(["attached", "updated", "detached", "output", "pong", "error",
  "calibration", "calibrationEnded", "screenReader", "announced", "accessibilityChanged"]);
const ACCESSIBILITY_TYPES = new Set(["accessibilityFocus", "accessibility"]);
const CALIBRATION_TYPES = new Set(["calibration", "calibrated", "calibrationEnded"]);
const ENDED = new Set(["ended", "cancelled"]);

/** A refusal from the daemon: .message is its error text, .reply the error message itself. */
export class TouchdError extends Error {
  constructor(reply) {
    super(typeof reply === "string" ? reply : reply.error || JSON.stringify(reply));
    this.name = "TouchdError";
    this.reply = typeof reply === "string" ? { type: "error", error: reply } : reply;
  }
}

/** The connection went away before a request was answered. */
export class ConnectionLost extends Error {
  constructor(reason) { super(reason); this.name = "ConnectionLost"; }
}

function copy(value) { return value === undefined ? undefined : JSON.parse(JSON.stringify(value)); }

function findView(view, id) {
  const stack = [[view, null]];
  while (stack.length) {
    const [node, parent] = stack.pop();
    if (!node) continue;
    if (node.id === id) return [node, parent];
    for (const sub of node.subviews || []) stack.push([sub, node]);
  }
  return [null, null];
}

/** Apply an update's changes to a window object in place (as the daemon applied them). */
export function applyChanges(window, changes) {
  for (const change of changes) {
    if ("set" in change) {
      const [view] = findView(window.view, change.view);
      if (!view) throw new Error(`no view ${JSON.stringify(change.view)} in window ${JSON.stringify(window.id)}`);
      const keys = copy(change.set);
      if (keys.scroll && view.scroll) { view.scroll = Object.assign(view.scroll, keys.scroll); delete keys.scroll; }
      // set's accessibility merges (docs/protocol.md): the keys given replace those, null resets one.
      if (keys.accessibility && typeof keys.accessibility === "object") {
        const merged = Object.assign({}, view.accessibility, keys.accessibility);
        for (const k of Object.keys(merged)) if (merged[k] === null) delete merged[k];
        view.accessibility = merged;
        delete keys.accessibility;
      }
      Object.assign(view, keys);
    } else if ("window" in change) {
      Object.assign(window, copy(change.window));
    } else if ("add" in change) {
      const [parent] = findView(window.view, change.to);
      if (!parent) throw new Error(`no view ${JSON.stringify(change.to)} in window ${JSON.stringify(window.id)}`);
      const subs = parent.subviews || (parent.subviews = []);
      subs.splice(change.index === undefined ? subs.length : change.index, 0, copy(change.add));
    } else if ("remove" in change) {
      const [view, parent] = findView(window.view, change.remove);
      if (!view) continue;
      if (!parent) delete window.view;
      else parent.subviews.splice(parent.subviews.indexOf(view), 1);
    }
  }
}

const encoder = new TextEncoder();
const byteLength = (value) => encoder.encode(JSON.stringify(value)).length;
const shallow = (view) => { const c = Object.assign({}, view); delete c.subviews; return c; };

// A view without its subviews, and without its accessibility `order` (whose ids are views not
// there yet): the order as a set to send once they are (null: none).
function alone(view) {
  const c = shallow(view);
  if (!c.accessibility || !("order" in c.accessibility)) return [c, null];
  c.accessibility = Object.assign({}, c.accessibility);
  const order = c.accessibility.order;
  delete c.accessibility.order;
  return [c, { view: c.id, set: { accessibility: { order } } }];
}

// A subtree as adds in pre-order, each view with its subviews left out (the first at `index`),
// then the sets of the `order`s they had.
function addsOf(view, to, index) {
  const out = [], orders = [];
  const stack = [[view, to, index]];
  while (stack.length) {
    const [v, parent, i] = stack.pop();
    let add = v, order = null;
    if (v.id !== undefined) [add, order] = alone(v);
    const change = { add, to: parent };
    if (i !== undefined) change.index = i;
    out.push(change);
    if (order) orders.push(order);
    if (v.id !== undefined) for (const sub of (v.subviews || []).slice().reverse()) stack.push([sub, v.id, undefined]);
  }
  return out.concat(orders);
}

/**
 * The requests that attach `window` within maxRequest bytes a line: one attach when it fits,
 * else (as the Python client) the window hidden with its root view alone, then updates adding
 * the other views in order, the last one showing it.
 */
export function attachRequests(window, maxRequest = 65536) {
  if (byteLength({ attach: window }) <= maxRequest || !window.view || window.view.id === undefined) return [["attach", window]];
  const [root, order] = alone(window.view);
  const shell = Object.assign({}, window, { hidden: true, view: root });
  const changes = [];
  for (const sub of window.view.subviews || []) changes.push(...addsOf(sub, window.view.id));
  if (order) changes.push(order);
  changes.push({ window: { hidden: !!window.hidden } });
  return [["attach", shell], ...updateRequests(window.id, changes, maxRequest)];
}

/** An update's changes in as many updates as fit maxRequest bytes each (an add too big for one
 * line as the adds of its views, one by one). */
export function updateRequests(windowId, changes, maxRequest = 65536) {
  const head = byteLength({ update: { window: windowId, changes: [] } });
  const out = [];
  let batch = [], size = head;
  const queue = changes.slice().reverse();
  while (queue.length) {
    const change = queue.pop();
    const length = byteLength(change);
    if (head + length > maxRequest && "add" in change && change.add.subviews && change.add.subviews.length) {
      queue.push(...addsOf(change.add, change.to, change.index).reverse());
      continue;
    }
    if (batch.length && size + length + 1 > maxRequest) {
      out.push(["update", { window: windowId, changes: batch }]);
      batch = []; size = head;
    }
    size += length + (batch.length ? 1 : 0);
    batch.push(change);
  }
  if (batch.length || !out.length) out.push(["update", { window: windowId, changes: batch }]);
  return out;
}

function defaultURL() {
  const loc = globalThis.location;
  return `${loc.protocol === "https:" ? "wss:" : "ws:"}//${loc.host}/socket`;
}

function tokenFromHash() {
  const hash = globalThis.location ? globalThis.location.hash.replace(/^#/, "") : "";
  return new URLSearchParams(hash).get("token");
}

export class TouchdClient {
  /**
   * @param {string} [url] the WebSocket (default ws(s)://<this host>/socket)
   * @param {{token?: string|null, reconnect?: boolean, timeout?: number, wait?: boolean}} [options]
   *   token: default from location.hash (#token=…), sent as the subprotocol "touchd.TOKEN";
   *   reconnect (default true): when the connection goes, try again (0.1 s doubling to 2 s);
   *   timeout: seconds a request waits for its reply (default 5); wait: a first connect that fails
   *   keeps trying instead of rejecting.
   */
  constructor(url, options = {}) {
    this.url = url || defaultURL();
    this.token = options.token !== undefined ? options.token : tokenFromHash();
    this.reconnect = options.reconnect !== undefined ? options.reconnect : true;
    this.timeout = options.timeout !== undefined ? options.timeout : 5;
    this.wait = !!options.wait;
    this.hello = null;
    /** id → our copy of each window we own, with every accepted change applied. */
    this.windows = new Map();
    this._subscription = null;
    this._ws = null;
    this._lines = 0;
    this._pending = [];          // {line, kind, resolve, reject, timer}
    this._callbacks = {};
    this._down = new Map();      // touch id → latest touch, for the cancels of touches that never end
    this._greeting = false;      // the snapshot after hello is news, not a subscribe's reply
    this._overflowed = false;
    this._up = false;
    this._everConnected = false;
    this._closed = false;
    this._backoff = 0.1;
    this._retry = null;
    this._connecting = null;
    this._bindings = new Map();  // window id → Binding
    /** The daemon's limit on a request line (docs/protocol.md): bigger attaches and updates are split. */
    this.maxRequest = 65536;
  }

  get connected() { return this._up; }
  get screen() { return this.hello ? [this.hello.screen.width, this.hello.screen.height] : null; }

  // -- callbacks: each returns a function that unregisters it -----------------------------
  _on(kind, fn) {
    (this._callbacks[kind] || (this._callbacks[kind] = [])).push(fn);
    return () => { const l = this._callbacks[kind]; const i = l.indexOf(fn); if (i >= 0) l.splice(i, 1); };
  }
  _emit(kind, ...args) { for (const fn of (this._callbacks[kind] || []).slice()) fn(...args); }
  /** fn(touch, frame) for each touch of each frame (and our cancels: frame null). */
  onTouch(fn) { return this._on("touch", fn); }
  onFrame(fn) { return this._on("frame", fn); }
  onControl(fn) { return this._on("control", fn); }
  onGesture(fn) { return this._on("gesture", fn); }
  onScroll(fn) { return this._on("scroll", fn); }
  onCalibration(fn) { return this._on("calibration", fn); }
  /** fn(msg) for the screen reader's focus ("accessibilityFocus") and actions ("accessibility":
   * activate, increment, decrement, escape, magicTap) — also DOM events on a bound view. */
  onAccessibility(fn) { return this._on("accessibility", fn); }
  /** fn(msg) for every "speech" message: what the screen reader says (docs/messages.md). */
  onSpeech(fn) { return this._on("speech", fn); }
  /** Every message that is not a reply (hello, snapshot, device, output, overflow, bye, …, and the above). */
  onMessage(fn) { return this._on("message", fn); }
  onConnect(fn) { return this._on("connect", fn); }
  onDisconnect(fn) { return this._on("disconnect", fn); }
  onError(fn) { return this._on("error", fn); }
  _report(error) {
    if ((this._callbacks.error || []).length) this._emit("error", error);
    else console.warn("touchd:", error.message || error);
  }

  // -- connection ----------------------------------------------------------------------------
  /** Connect: resolves with the hello once the subscription and windows are sent again. */
  connect() {
    this._closed = false;
    if (this._up) return Promise.resolve(this.hello);
    if (this._connecting) return this._connecting;
    this._connecting = new Promise((resolve, reject) => this._open(resolve, reject));
    return this._connecting;
  }

  _open(resolve, reject) {
    let ws;
    const protocols = this.token ? [`touchd.${this.token}`] : [];
    try {
      ws = new WebSocket(this.url, protocols);
    } catch (e) {
      this._connecting = null;
      reject(e);
      return;
    }
    this._ws = ws;
    this._lines = 0;
    this._greeting = false;
    this._overflowed = false;
    let helloSeen = false;
    ws.onmessage = (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch (e) {
        this._report(new Error(`a message that is not JSON: ${String(event.data).slice(0, 80)}`));
        return;
      }
      if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
        this._report(new Error("a message that is not a JSON object"));
        return;
      }
      if (!helloSeen && msg.type === "hello") {
        helloSeen = true;
        this.hello = msg;
        this._greeting = true;
        this._restore().then(() => {
          this._up = this._everConnected = true;
          this._backoff = 0.1;
          this._connecting = null;
          this._emit("connect", msg);
          for (const b of this._bindings.values()) b._changed(true);
          resolve(msg);
        }, (e) => { if (!(e instanceof ConnectionLost)) this._report(e); });
        this._emit("message", msg);
        return;
      }
      this._handle(msg);
    };
    ws.onclose = (event) => {
      if (this._ws !== ws) return;
      const reason = event.reason || (helloSeen ? "closed" : `cannot connect to ${this.url} (${event.code})`);
      this._drop(reason);
      if (!helloSeen && !(this.wait || (this.reconnect && this._everConnected)) ) {
        this._connecting = null;
        reject(new ConnectionLost(reason));
        return;
      }
      if (!helloSeen) this._connecting = null;
      if (!this._closed && (this.reconnect || this.wait)) this._scheduleRetry(resolve, reject);
    };
  }

  _scheduleRetry(resolve, reject) {
    clearTimeout(this._retry);
    const delay = this._backoff;
    this._backoff = Math.min(this._backoff * 2, 2);
    this._retry = setTimeout(() => {
      if (this._closed || this._up) return;
      if (resolve && !this._connecting) {
        this._connecting = new Promise((res, rej) => this._open((h) => { res(h); resolve(h); },
          (e) => { rej(e); reject(e); }));
      } else if (!this._connecting) {
        this._connecting = new Promise((res, rej) => this._open(res, rej));
        this._connecting.catch(() => {});
      }
    }, delay * 1000);
  }

  async _restore() {
    if (this._subscription !== null) {
      try { await this._request("subscribe", this._subscription); } catch (e) { if (e instanceof ConnectionLost) throw e; this._report(e); }
    }
    for (const [id, window] of [...this.windows]) {
      try { await this._send("attach", window); } catch (e) {
        if (e instanceof ConnectionLost) throw e;
        this._report(e);
        this.windows.delete(id);
      }
    }
  }

  /** Close for good (no reconnecting); the daemon drops our windows. */
  close() {
    this._closed = true;
    this.reconnect = this.wait = false;
    clearTimeout(this._retry);
    if (this._ws) this._ws.close(1000, "closed");
    this._drop("closed");
  }

  _drop(reason) {
    const ws = this._ws;
    if (!ws) return;
    this._ws = null;
    ws.onmessage = ws.onclose = null;
    try { ws.close(); } catch (e) { /* already closed */ }
    for (const p of this._pending.splice(0)) { clearTimeout(p.timer); p.reject(new ConnectionLost(reason)); }
    const wasUp = this._up;
    this._up = false;
    if (wasUp) {
      this._endTouches("disconnected", new Map());
      this._emit("disconnect", reason);
    }
  }

  // -- messages ------------------------------------------------------------------------------
  _handle(msg) {
    const kind = msg.type;
    if (kind === "overflow") {
      this._overflowed = true;
      this._news(msg);
    } else if (kind === "snapshot" && !this._greeting && !this._overflowed && this._waiting("subscribe")) {
      this._answer(this._waiting("subscribe"), msg);
      this._news(msg, "subscribe");
    } else if (kind === "pong" && this._waiting("ping")) {
      this._answer(this._waiting("ping"), msg);
    } else if (REPLY_TYPES.has(kind) && typeof msg.line === "number") {
      const p = this._pending.find((q) => q.line === msg.line);
      if (p) this._answer(p, msg);
      else if (kind === "error") this._report(new TouchdError(msg));
      else this._report(new Error(`a reply to no request (line ${msg.line})`));
    } else if (kind === "bye") {
      this._news(msg);
      this._drop(`bye: ${msg.reason || ""}`);
    } else {
      let after = null;
      if (kind === "snapshot") {
        after = this._overflowed ? "overflow" : this._greeting ? "snapshot" : "subscribe";
        this._overflowed = this._greeting = false;
      }
      if (kind === "error") this._report(new TouchdError(msg));
      else this._news(msg, after);
    }
  }

  _news(msg, after) {
    const kind = msg.type;
    if (kind === "frame") {
      this._emit("frame", msg);
      for (const touch of msg.touches || []) {
        if (ENDED.has(touch.phase)) this._down.delete(touch.id);
        else if (this._down.size < 1024 || this._down.has(touch.id)) this._down.set(touch.id, touch);
        this._emit("touch", touch, msg);
      }
    } else if (kind === "control" || kind === "gesture" || kind === "scroll") {
      if (kind === "scroll") this._trackScroll(msg);
      this._emit(kind, msg);
    } else if (CALIBRATION_TYPES.has(kind)) {
      this._emit("calibration", msg);
    } else if (ACCESSIBILITY_TYPES.has(kind)) {
      this._emit("accessibility", msg);
    } else if (kind === "speech") {
      this._emit("speech", msg);
    } else if (kind === "detached" && this.windows.has(msg.window)) {
      // Not a reply: the daemon took the window from us (a client higher in the policy,
      // reason "preempted"). Our copy goes; its binding stops following the page.
      this.windows.delete(msg.window);
      const b = this._bindings.get(msg.window);
      if (b) {
        b._stop();
        this._bindings.delete(msg.window);
        b.element.dispatchEvent(new CustomEvent("touchd:detached", { detail: msg, bubbles: true }));
      }
    } else if (kind === "updated" && this.windows.has(msg.window) && typeof msg.level === "number") {
      // Not a reply: a reload moved the window's level into our range (reason "policy").
      this.windows.get(msg.window).level = msg.level;
      const b = this._bindings.get(msg.window);
      if (b) b.level = msg.level;
    } else if (kind === "snapshot") {
      const now = new Map((msg.touches || []).map((t) => [t.id, t]));
      this._endTouches(after || "snapshot", now);
      this._down = now;
    }
    for (const b of this._bindings.values()) b._message(msg);
    this._emit("message", msg);
  }

  _endTouches(reason, keep) {
    for (const [id, touch] of [...this._down]) {
      if (!keep.has(id)) {
        this._down.delete(id);
        const cancelled = Object.assign({}, touch, { phase: "cancelled", reason });
        for (const b of this._bindings.values()) b._touch(cancelled, null);
        this._emit("touch", cancelled, null);
      }
    }
  }

  _trackScroll(msg) {
    for (const window of this.windows.values()) {
      const [view] = findView(window.view, msg.view);
      if (view) view.boundsOrigin = msg.offset.slice();
    }
  }

  _waiting(kind) { return this._pending.find((p) => p.kind === kind) || null; }

  _answer(p, reply) {
    this._pending.splice(this._pending.indexOf(p), 1);
    clearTimeout(p.timer);
    if (reply.type === "error") p.reject(new TouchdError(reply));
    else p.resolve(reply);
  }

  // -- requests ------------------------------------------------------------------------------
  _request(kind, body) {
    const ws = this._ws;
    if (!ws || ws.readyState !== 1) return Promise.reject(new ConnectionLost("not connected"));
    return new Promise((resolve, reject) => {
      ws.send(JSON.stringify({ [kind]: body }));
      const line = ++this._lines;
      const p = { line, kind, resolve, reject, timer: null };
      p.timer = setTimeout(() => {
        this._drop(`no reply to ${kind} within ${this.timeout} s`);
      }, this.timeout * 1000);
      this._pending.push(p);
    });
  }

  async _change(kind, body, apply) {
    let reply = null;
    if (this._up || (this._ws && kind === "attach")) {
      try { reply = await this._send(kind, body); } catch (e) {
        if (!(e instanceof ConnectionLost) || !this.reconnect) throw e;
      }
    }
    apply();
    return reply;
  }

  // An attach or update in as many requests as the daemon's line limit needs (splitRequests);
  // the reply is the first's (an attach's) or the last's (an update's), with the last version.
  async _send(kind, body) {
    const requests = kind === "attach" ? attachRequests(body, this.maxRequest)
      : kind === "update" ? updateRequests(body.window, body.changes, this.maxRequest) : [[kind, body]];
    let reply = null;
    for (const [k, b] of requests) {
      let answer;
      try { answer = await this._request(k, b); } catch (e) {
        if (kind === "attach" && reply && !(e instanceof ConnectionLost)) {
          await this._request("detach", { window: body.id }).catch(() => null);
        }
        throw e;
      }
      reply = reply && kind === "attach" ? Object.assign(reply, { version: answer.version }) : answer;
    }
    return reply;
  }

  /** Attach a window (a config window object, optionally "private": true). */
  attach(window) {
    window = copy(window);
    return this._change("attach", window, () => this.windows.set(window.id, window));
  }

  /** Apply changes to our window atomically; resolves {"type":"updated","version":N,…}. */
  update(windowId, changes) {
    if (!this.windows.has(windowId)) return Promise.reject(new Error(`not our window: ${windowId}`));
    changes = copy(changes);
    return this._change("update", { window: windowId, changes },
      () => applyChanges(this.windows.get(windowId), changes));
  }

  /** Detach our window; resolves {"type":"detached",…}. */
  detach(windowId) {
    return this._change("detach", { window: windowId }, () => this.windows.delete(windowId));
  }

  /** Replace the subscription filter ({types, windows, views, maxRate}; kept across reconnects). */
  async subscribe(filter = {}) {
    const sub = {};
    for (const k of ["types", "windows", "views", "maxRate"]) if (filter[k] !== undefined) sub[k] = filter[k];
    const reply = await this._request("subscribe", sub);
    this._subscription = sub;
    return reply;
  }

  /** Round trip to the daemon; resolves with the seconds it took. */
  async ping(value) {
    const start = performance.now();
    await this._request("ping", value !== undefined ? value : this._lines + 1);
    return (performance.now() - start) / 1000;
  }

  /** Turn an output (0, 90, 180 or 270); resolves {"type":"output","output":{…},…}. */
  rotateOutput(outputId, rotation) { return this._request("output", { id: outputId, rotation }); }

  /** Start calibrating touchscreen `device`; resolves with the first target to draw. */
  calibrate(device, targets) {
    const body = { device };
    if (targets) body.targets = targets.map(([x, y]) => [x, y]);
    return this._request("calibrate", body);
  }

  cancelCalibration(device) { return this._request("calibrate", { device, cancel: true }); }

  /** Turn output `output`'s screen reader on or off (a client allowed to act on the output). */
  screenReader(output, on) { return this._request("screenReader", { output, on: !!on }); }

  /** Have the screen reader of `output` say `text` at once (an announcement). */
  announce(output, text) { return this._request("announce", { output, text }); }

  /** The screen changed ({screen: true}: focus to the first element, or `focus`, read) or its
   * layout did ({layout: true}); resolves {"type":"accessibilityChanged","focus":…}. */
  accessibilityChanged(output, { screen = false, layout = false, focus } = {}) {
    const body = { output };
    if (screen) body.screen = true;
    if (layout) body.layout = true;
    if (focus !== undefined && focus !== null) body.focus = focus;
    return this._request("accessibilityChanged", body);
  }

  /** The daemon's stats reply. */
  stats() { return this._request("stats", true); }

  /**
   * Attach a window covering `element` whose views are its descendants marked
   * data-touchd-view="ID", and keep it in sync with the page (see Binding).
   */
  async bind(element, options = {}) {
    const binding = new Binding(this, element, options);
    this._bindings.set(binding.id, binding);
    try {
      await binding._attach();
    } catch (e) {
      this._bindings.delete(binding.id);
      binding._stop();
      throw e;
    }
    return binding;
  }
}

// -- bind: DOM elements as views -----------------------------------------------------------
const round = (v) => Math.round(v * 1000) / 1000;

function sameJSON(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

// -- accessibility: a page read by its own names and roles -----------------------------------
// bind gives each view the `accessibility` keys (docs/config.md) its element's markup implies: a
// documented subset of W3C's accessible name computation (accname 1.2) and of HTML-AAM's roles
// (docs/web.md "Read by the page's own names"), computed here because Chromium gives a page no
// API for the computed name. `data-touchd-accessibility='{…}'` overrides key by key (null drops
// a derived key).

/** accname's "roles that allow name from content" (ARIA 1.2), of those a kiosk uses. */
const NAME_FROM_CONTENT = new Set(["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link",
  "menuitem", "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab",
  "tooltip", "treeitem"]);
/** Roles read as one element (VoiceOver lands on them; what is inside is read with them). */
const ELEMENT_ROLES = new Set([...NAME_FROM_CONTENT, "img", "image", "slider", "spinbutton", "searchbox", "textbox",
  "combobox", "listbox", "progressbar", "meter", "scrollbar"]);
/** Roles a value is read from (aria-valuetext, else aria-valuenow, else a native control's value). */
const RANGE_ROLES = new Set(["slider", "spinbutton", "progressbar", "meter", "scrollbar"]);
/** The traits a role brings (AccessibilityTrait); other roles bring none. */
const ROLE_TRAITS = { button: "button", link: "link", heading: "header", img: "image", image: "image",
  slider: "adjustable", spinbutton: "adjustable", searchbox: "searchField" };
/** role="…" tokens understood (the first of these in the attribute wins, as ARIA's fallback list). */
const ROLES = new Set([...ELEMENT_ROLES, "alert", "alertdialog", "article", "banner", "dialog", "document", "feed",
  "figure", "form", "generic", "grid", "group", "list", "listitem", "main", "navigation", "none", "note", "paragraph",
  "presentation", "radiogroup", "region", "separator", "status", "table", "tablist", "tabpanel", "text", "toolbar",
  "tree"]);
/** The daemon's check of `language` (ConfigReader.isLanguageTag): a tag it would refuse is not sent. */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
/** Keys whose default is false: an absent key and `false` are the same state. */
const FLAGS = ["hidden", "modal", "secure"];
const MAX_TEXT = 1000;      // bytes of a label, value or hint (the daemon refuses longer ones)

const squash = (s) => s.replace(/\s+/g, " ").trim();

// At most MAX_TEXT bytes of UTF-8, cut at a character.
function bounded(s) {
  if (encoder.encode(s).length <= MAX_TEXT) return s;
  let out = "", size = 0;
  for (const ch of s) {
    size += encoder.encode(ch).length;
    if (size > MAX_TEXT - 3) break;
    out += ch;
  }
  return out + "…";
}

/** The role an element has for the subset: its first known role="…" token, else HTML-AAM's. */
function roleOf(el) {
  const given = (el.getAttribute("role") || "").toLowerCase().split(/\s+/).find((r) => ROLES.has(r));
  if (given) return given === "presentation" ? "none" : given;
  const tag = el.localName;
  if (/^h[1-6]$/.test(tag)) return "heading";
  switch (tag) {
    case "button": return "button";
    case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
    case "img": return el.getAttribute("alt") === "" ? "none" : "img";
    case "textarea": return "textbox";
    case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
    case "dialog": return "dialog";
    case "p": return "paragraph";
    case "progress": return "progressbar";
    case "meter": return "meter";
    case "input": {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      if (type === "search") return "searchbox";
      if (type === "checkbox" || type === "radio") return type;
      if (type === "hidden") return "none";
      return "textbox";
    }
    default: return "generic";
  }
}

const isPassword = (el) => el.localName === "input" && (el.getAttribute("type") || "").toLowerCase() === "password";

// Not rendered, or hidden from assistive technology by the element itself (its ancestors are
// the caller's business): aria-hidden="true", the hidden attribute, display: none, visibility.
function hiddenHere(el) {
  if ((el.getAttribute("aria-hidden") || "").toLowerCase() === "true" || el.hasAttribute("hidden")) return true;
  const style = el.ownerDocument.defaultView.getComputedStyle(el);
  return style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse";
}

function idrefs(el, name) {
  const doc = el.ownerDocument;
  return (el.getAttribute(name) || "").split(/\s+/).filter(Boolean).map((id) => doc.getElementById(id)).filter(Boolean);
}

// A form control's value as accname's step 2C reads an embedded control (a password never).
function controlValue(el, role) {
  if (RANGE_ROLES.has(role)) {
    const text = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow");
    if (text !== null && text.trim()) return text.trim();
    return "value" in el && el.localName !== "li" ? String(el.value) : "";
  }
  if (role === "combobox" && el.localName === "select") return el.selectedOptions && el.selectedOptions[0] ? squash(el.selectedOptions[0].textContent) : "";
  if ((role === "textbox" || role === "searchbox") && !isPassword(el)) {
    return "value" in el && (el.localName === "input" || el.localName === "textarea") ? el.value : el.textContent;
  }
  return "";
}

/**
 * accname 1.2's text alternative of `node`, for the steps touchd implements: 2A (hidden nodes
 * skipped unless reached through aria-labelledby/-describedby), 2B aria-labelledby, 2C an
 * embedded control's value, 2D aria-label, 2E the host language's label (img/area alt, a form
 * control's <label>s, an input button's value), 2F name from content (text nodes, each child's
 * own text alternative, blocks set apart by spaces), 2I the title attribute.
 */
function textAlternative(node, ctx) {
  if (node.nodeType === 3) return node.data;
  if (node.nodeType !== 1) return "";
  const el = node;
  if (ctx.seen.has(el)) return "";
  ctx.seen.add(el);
  const root = ctx.root === el;
  if (!ctx.hiddenOK && hiddenHere(el)) return "";                                   // 2A
  if (!ctx.referenced) {                                                             // 2B
    const refs = idrefs(el, "aria-labelledby");
    if (refs.length) {
      if (ctx.refs) for (const r of refs) ctx.refs.add(r);
      const text = squash(refs.map((r) => textAlternative(r, { seen: ctx.seen, referenced: true, content: true,
        hiddenOK: ctx.hiddenOK || hiddenHere(r), refs: ctx.refs })).join(" "));
      if (text) return text;
    }
  }
  const role = roleOf(el);
  if (!root && (ctx.content || ctx.referenced)) {                                    // 2C
    if (RANGE_ROLES.has(role) || role === "textbox" || role === "searchbox" || (role === "combobox" && el.localName === "select")) {
      return controlValue(el, role);
    }
  }
  const label = (el.getAttribute("aria-label") || "").trim();                        // 2D
  if (label) return label;
  if (role !== "none") {                                                             // 2E
    const native = hostLabel(el, ctx);
    if (native) return native;
  }
  if (root ? NAME_FROM_CONTENT.has(role) : true) {                                   // 2F
    const text = contentText(el, ctx);
    if (squash(text)) return text;
  }
  return el.getAttribute("title") || "";                                             // 2I
}

// The host language's own text alternative (accname 2E; HTML-AAM).
function hostLabel(el, ctx) {
  const tag = el.localName;
  const type = tag === "input" ? (el.getAttribute("type") || "").toLowerCase() : "";
  if (tag === "img" || tag === "area" || type === "image") return el.getAttribute("alt") || "";
  if (tag === "input" && ["button", "submit", "reset"].includes(type)) {
    return el.getAttribute("value") || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
  }
  if (el.labels && el.labels.length) {
    const parts = [...el.labels].map((l) => {
      if (ctx.refs) ctx.refs.add(l);
      return textAlternative(l, { seen: ctx.seen, referenced: true, content: true, hiddenOK: ctx.hiddenOK, refs: ctx.refs });
    });
    return squash(parts.join(" "));
  }
  return "";
}

// accname 2F: the text of the element's children, each by its own text alternative; a child
// that is not inline is set apart by spaces (CSS ::before/::after content is not read).
function contentText(el, ctx) {
  let out = "";
  const win = el.ownerDocument.defaultView;
  for (const child of el.childNodes) {
    if (child.nodeType === 3) { out += child.data; continue; }
    if (child.nodeType !== 1) continue;
    const text = textAlternative(child, Object.assign({}, ctx, { content: true, root: null }));
    const display = win.getComputedStyle(child).display;
    out += display.startsWith("inline") || display === "contents" ? text : ` ${text} `;
  }
  return out;
}

/** accname's name of `el`, whitespace collapsed (refs: a Set that gets the elements read for it);
 * a text field without one is named by its placeholder (HTML-AAM). */
function nameOf(el, refs) {
  const name = squash(textAlternative(el, { seen: new Set(), root: el, referenced: false, content: false, hiddenOK: false, refs }));
  if (name || !(el.localName === "input" || el.localName === "textarea")) return name;
  return squash(el.getAttribute("placeholder") || el.getAttribute("aria-placeholder") || "");
}

// The accessible description, read as the hint: aria-describedby, else aria-description, else
// a title that did not make the name.
function descriptionOf(el, name, refs) {
  const described = idrefs(el, "aria-describedby");
  if (described.length) {
    const seen = new Set([el]);
    const text = squash(described.map((r) => { refs.add(r); return textAlternative(r, { seen, referenced: true, content: true, hiddenOK: true, refs }); }).join(" "));
    if (text) return text;
  }
  const given = squash(el.getAttribute("aria-description") || "");
  if (given) return given;
  const title = squash(el.getAttribute("title") || "");
  return title && title !== name ? title : "";
}

/**
 * The accessibility keys bind gives the view of element `el` (docs/web.md): what its markup
 * says, then its data-touchd-accessibility. `container`: it has views under it (then it is
 * never one element, whatever its role, so that they are read); `refs`, a Set, gets the
 * elements outside it that its name and description were read from.
 */
export function accessibilityOf(el, options = {}) {
  return deriveAccessibility(el, !!options.container, options.refs || new Set()).keys;
}

// accessibilityOf's keys, and the page's own data-touchd-accessibility object (null: none).
function deriveAccessibility(el, container, refs) {
  const a = {};
  if (el.closest("[inert]") || el.closest('[aria-hidden="true" i]')) a.hidden = true;
  const role = roleOf(el);
  if ((role === "dialog" || role === "alertdialog") && (el.getAttribute("aria-modal") || "").toLowerCase() === "true") a.modal = true;
  else { try { if (el.matches(":modal")) a.modal = true; } catch (e) { /* no :modal in this browser */ } }
  if (!container && !a.hidden) {
    // A role read as one element, or a name the page gave (accname 2B, 2D): an element, even
    // without a name ("button"); otherwise its text, if any, is read as static text.
    const named = ELEMENT_ROLES.has(role) || !!(el.getAttribute("aria-label") || "").trim() || idrefs(el, "aria-labelledby").length > 0;
    const name = named ? nameOf(el, refs) : role === "none" ? "" : squash(contentText(el, { seen: new Set([el]), content: true, hiddenOK: false, refs }));
    const traits = [];
    if ((el.getAttribute("aria-selected") || "").toLowerCase() === "true") traits.push("selected");
    let disabled = !!el.closest('[aria-disabled="true" i]');
    try { disabled = disabled || el.matches(":disabled"); } catch (e) { /* an element that cannot be disabled */ }
    if (disabled) traits.push("notEnabled");
    if (ROLE_TRAITS[role]) traits.push(ROLE_TRAITS[role]);
    if (named) {
      a.element = true;
      if (name) a.label = bounded(name);
    } else if (name) {
      a.label = bounded(name);
      traits.push("staticText");
    }
    if (a.label || a.element) {
      const value = isPassword(el) ? "•".repeat(el.value.length) : controlValue(el, role);
      if (value && squash(value)) a.value = bounded(squash(value));
      const hint = descriptionOf(el, name, refs);
      if (hint) a.hint = bounded(hint);
      if (traits.length) a.traits = traits;
      if (isPassword(el)) a.secure = true;
      const lang = el.closest("[lang]");
      const tag = lang && lang.getAttribute("lang").trim();
      if (tag && LANGUAGE_TAG.test(tag)) a.language = tag;
    }
  }
  const given = el.getAttribute("data-touchd-accessibility");
  if (given) {
    const extra = parseAttribute(el, "data-touchd-accessibility", given);
    if (!extra || typeof extra !== "object" || Array.isArray(extra)) {
      throw new Error(`data-touchd-accessibility of <${el.localName} data-touchd-view="${el.getAttribute("data-touchd-view")}">: not a JSON object`);
    }
    for (const [k, v] of Object.entries(extra)) { if (v === null) delete a[k]; else a[k] = v; }
    return { keys: a, given: extra };
  }
  return { keys: a, given: null };
}

// The daemon's reading order of sibling views (AccessibilityTree.swift's byPlace): by their top
// edge, rows of views whose heights overlap the row's first by half the shorter, each row left
// to right; ties by their place among the siblings.
function byPlace(ids, frames) {
  const items = ids.map((id, k) => ({ id, k, f: frames.get(id) }));
  items.sort((a, b) => a.f[1] - b.f[1] || a.f[0] - b.f[0] || a.k - b.k);
  const sameRow = (a, b) => {
    const shorter = Math.min(a[3], b[3]);
    if (shorter <= 0) return a[1] === b[1];
    return Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]) >= shorter / 2;
  };
  const out = [];
  let row = [];
  const flush = () => { out.push(...row.sort((a, b) => a.f[0] - b.f[0] || a.f[1] - b.f[1] || a.k - b.k).map((i) => i.id)); row = []; };
  for (const item of items) {
    if (row.length && !sameRow(row[0].f, item.f)) flush();
    row.push(item);
  }
  flush();
  return out;
}

/** A set's accessibility patch from `old` to `now` (null drops a key; a flag goes back to false). */
function accessibilityPatch(old, now) {
  const plain = (a) => { const c = Object.assign({}, a || {}); for (const f of FLAGS) if (c[f] === false) delete c[f]; return c; };
  const o = plain(old), n = plain(now);
  const patch = {};
  for (const [k, v] of Object.entries(n)) if (!sameJSON(o[k], v)) patch[k] = v;
  for (const k of Object.keys(o)) if (!(k in n)) patch[k] = FLAGS.includes(k) ? false : null;
  return patch;
}

/**
 * A bound element: a window whose root view covers the element ("hitTest": "passthrough": only
 * marked descendants take touches) and whose views are the marked descendants at their
 * rectangles in the output's points (CSS px × devicePixelRatio, the viewport at `origin`, a
 * data-touchd-scroll element's descendants in its content's coordinates). At most one update per
 * animation frame, after layout changes, resizes, DOM changes, scrolling and while animations
 * run. Dispatches touchd:touch, touchd:control, touchd:<event>, touchd:gesture and
 * touchd:scroll on the views' elements (bubbling) and drives each scroll element's offset from
 * touchd's scroll messages.
 */
export class Binding {
  constructor(client, element, options) {
    if (!options.window) throw new Error("bind: options.window (the window's id) is required");
    this.client = client;
    this.element = element;
    this.id = options.window;
    this.rootId = options.root || `${this.id}.root`;
    this.level = options.level || 0;
    this.private = !!options.private;
    this.output = options.output;
    this.origin = options.origin || [0, 0];
    this.updates = 0;                 // updates sent (for tests and the curious)
    this.views = new Map();           // view id → element (the root: the bound element)
    this._sent = null;                // the tree as the daemon has it: id → {parent, index, keys}
    this._frame = null;
    this._scheduled = false;
    this._inFlight = null;
    this._dirty = false;
    this._driven = new Map();         // scroll element → offset (CSS px) touchd put it at
    this._over = new Map();           // scroll element → [dx, dy] CSS px past its edges (a bounce)
    this._a11y = new Map();           // element → {keys, given, refs}: its accessibility as last derived
    this._refs = new Set();           // elements outside the bound one that names were read from
    this._observe();
  }

  /** Measure on the next animation frame and send what changed, and every frame while an
   * animation runs on, under or above the element (normally done for you: call it after
   * element.animate(), which fires no event). */
  refresh() { this._a11y.clear(); this._changed(); }

  /** Stop following the element and detach the window. */
  async unbind() {
    this._stop();
    this.client._bindings.delete(this.id);
    return this.client.detach(this.id);
  }

  _stop() {
    this._stopped = true;
    if (this._resize) this._resize.disconnect();
    if (this._mutation) this._mutation.disconnect();
    if (this._outside) this._outside.disconnect();
    for (const [target, type, fn, opts] of this._listeners || []) target.removeEventListener(type, fn, opts);
  }

  _observe() {
    const changed = () => this._changed();
    // A DOM change or a form control's new value may change what is read: derived again.
    const fresh = () => { this._a11y.clear(); this._changed(); };
    this._resize = new ResizeObserver(changed);
    this._mutation = new MutationObserver((records) => {
      // Our own scroll driving changes no attribute; any DOM change may move views.
      if (records.some((r) => r.type === "childList")) this._observeSizes();
      fresh();
    });
    this._mutation.observe(this.element, { subtree: true, childList: true, attributes: true, characterData: true });
    const doc = this.element.ownerDocument;
    const win = doc.defaultView;
    // Outside the element: an ancestor's attributes (aria-hidden, inert, lang, a class that
    // moves or hides it) and the elements its views' names are read from (a <label>, an
    // aria-labelledby target elsewhere on the page).
    this._outside = new MutationObserver((records) => { if (records.some((r) => this._concerns(r))) fresh(); });
    this._outside.observe(doc.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
    // A CSS transition or animation moves what no observer sees (a transform, left in a
    // keyframe); it may be started from outside the element (a class on <body>). Each one that
    // starts, ends or is cancelled on the element, under it or above it starts (or ends) the
    // measuring of every frame while it runs (_animating). element.animate() fires no event:
    // after it, refresh().
    const animated = (event) => {
      const target = event.target;
      if (target && target.nodeType === 1 && (this.element.contains(target) || target.contains(this.element))) changed();
    };
    const quiet = { capture: true, passive: true };
    this._listeners = [[win, "scroll", changed, quiet], [win, "resize", changed, undefined],
      [this.element, "input", fresh, quiet], [this.element, "change", fresh, quiet],
      ...["transitionrun", "transitionend", "transitioncancel", "animationstart", "animationend", "animationcancel"]
        .map((type) => [doc, type, animated, quiet])];
    for (const [t, type, fn, opts] of this._listeners) t.addEventListener(type, fn, opts);
    this._observeSizes();
  }

  // Whether a mutation outside the bound element changes what its views say or where they are.
  _concerns(record) {
    const t = record.target;
    if (this.element.contains(t)) return false;          // the element's own observer has it
    if (record.type === "attributes" && t.contains(this.element)) return true;
    for (const ref of this._refs) if (ref.contains(t) || t.contains(ref)) return true;
    return false;
  }

  // The accessibility keys of a view's element, derived once until something changes.
  _accessibility(el, container) {
    let entry = this._a11y.get(el);
    if (!entry || entry.container !== container) {
      const refs = new Set();
      entry = Object.assign(deriveAccessibility(el, container, refs), { container, refs });
      this._a11y.set(el, entry);
    }
    for (const r of entry.refs) if (!this.element.contains(r)) this._refs.add(r);
    return entry;
  }

  _observeSizes() {
    this._resize.disconnect();
    this._resize.observe(this.element);
    for (const el of this.element.querySelectorAll("[data-touchd-view]")) this._resize.observe(el);
  }

  _changed(force) {
    if (force) this._sent = this._sent && this.client.windows.has(this.id) ? this._fromCopy() : null;
    if (this._stopped || this._scheduled) return;
    this._scheduled = true;
    requestAnimationFrame(() => {
      this._scheduled = false;
      this._sync();
      if (this._animating()) this._changed();
    });
  }

  // Whether an animation or transition runs on the element, under it or above it (an ancestor's
  // moves the whole window): then it is measured again next frame.
  _animating() {
    const doc = this.element.ownerDocument;
    if (!doc.getAnimations) return false;
    return doc.getAnimations().some((a) => {
      const target = a.playState === "running" && a.effect && a.effect.target;
      return !!target && (this.element.contains(target) || target.contains(this.element));
    });
  }

  // The page as views now: {window frame, nodes: id → {parent, index, keys}, order: [ids pre-order]}.
  _measure() {
    const dpr = this.element.ownerDocument.defaultView.devicePixelRatio || 1;
    const [ox, oy] = this.origin;
    const er = this.element.getBoundingClientRect();
    const nodes = new Map();
    const boxes = new Map();          // id → [left, top] of its frame box, its content origin
    const order = [this.rootId];
    this.views = new Map([[this.rootId, this.element]]);
    this._refs = new Set();
    nodes.set(this.rootId, { parent: null, index: 0, keys: { id: this.rootId,
      frame: [0, 0, round(er.width * dpr), round(er.height * dpr)], hitTest: "passthrough" } });
    const given = new Map();          // id → the page's own data-touchd-accessibility
    const rootA11y = this._accessibility(this.element, true);
    if (Object.keys(rootA11y.keys).length) nodes.get(this.rootId).keys.accessibility = Object.assign({}, rootA11y.keys);
    given.set(this.rootId, rootA11y.given);
    boxes.set(this.rootId, { left: er.left, top: er.top, sx: 0, sy: 0 });
    const children = new Map([[this.rootId, 0]]);
    for (const el of this.element.querySelectorAll("[data-touchd-view]")) {
      const id = el.getAttribute("data-touchd-view");
      if (!id || nodes.has(id)) continue;
      const up = el.parentElement && el.parentElement.closest("[data-touchd-view]");
      const parent = up && this.element.contains(up) && up !== this.element && nodes.has(up.getAttribute("data-touchd-view"))
        ? up.getAttribute("data-touchd-view") : this.rootId;
      const pb = boxes.get(parent);
      const r = el.getBoundingClientRect();
      const scroll = el.hasAttribute("data-touchd-scroll");
      // A scroll view's frame is its padding box (where its content is drawn); others' their border box.
      const left = scroll ? r.left + el.clientLeft : r.left;
      const top = scroll ? r.top + el.clientTop : r.top;
      const width = scroll ? el.clientWidth : r.width;
      const height = scroll ? el.clientHeight : r.height;
      const keys = { id, frame: [round((left - pb.left + pb.sx) * dpr), round((top - pb.top + pb.sy) * dpr),
        round(width * dpr), round(height * dpr)] };
      const style = el.ownerDocument.defaultView.getComputedStyle(el);
      keys.hidden = style.visibility === "hidden" || style.display === "none" || (r.width === 0 && r.height === 0 && !el.getClientRects().length);
      const control = el.getAttribute("data-touchd-control");
      if (control) { keys.control = control; keys.enabled = !el.disabled && el.getAttribute("aria-disabled") !== "true"; }
      const gestures = el.getAttribute("data-touchd-gestures");
      if (gestures) keys.gestures = parseAttribute(el, "data-touchd-gestures", gestures);
      if (scroll) {
        const given = el.getAttribute("data-touchd-scroll");
        const extra = given && given.trim().startsWith("{") ? parseAttribute(el, "data-touchd-scroll", given) : {};
        let contentSize = [round(el.scrollWidth * dpr), round(el.scrollHeight * dpr)];
        const sent = this._sent && this._sent.nodes.get(id);
        // During a bounce the translated children grow the scroll size: the content is as it was.
        if (this._over.has(el) && sent && sent.keys.scroll) contentSize = sent.keys.scroll.contentSize;
        keys.scroll = Object.assign({}, extra, { contentSize });
        keys.boundsOrigin = [round(el.scrollLeft * dpr), round(el.scrollTop * dpr)];
      }
      const a11y = this._accessibility(el, !!el.querySelector("[data-touchd-view]"));
      if (Object.keys(a11y.keys).length) keys.accessibility = Object.assign({}, a11y.keys);
      given.set(id, a11y.given);
      const more = el.getAttribute("data-touchd-options");
      if (more) Object.assign(keys, parseAttribute(el, "data-touchd-options", more), { id });
      const index = children.get(parent);
      children.set(parent, index + 1);
      children.set(id, 0);
      nodes.set(id, { parent, index, keys });
      const over = (scroll && this._over.get(el)) || [0, 0];     // a bounce's translate, taken out
      boxes.set(id, { left, top, sx: scroll ? el.scrollLeft + over[0] : 0, sy: scroll ? el.scrollTop + over[1] : 0 });
      order.push(id);
      this.views.set(id, el);
    }
    this._readingOrder(nodes, order, given);
    const frame = [round(ox + er.left * dpr), round(oy + er.top * dpr), round(er.width * dpr), round(er.height * dpr)];
    return { frame, nodes, order, dpr };
  }

  // A page is read in its DOM order (as a browser's screen reader reads it): a view whose
  // subviews the daemon would read in another order (rows by place, AccessibilityTree.swift)
  // gets an `order` listing them as the DOM has them — unless the page gave one (or null).
  _readingOrder(nodes, order, given) {
    const kids = new Map();
    for (const id of order) {
      const { parent } = nodes.get(id);
      if (parent !== null) (kids.get(parent) || kids.set(parent, []).get(parent)).push(id);
    }
    const frames = new Map(order.map((id) => [id, nodes.get(id).keys.frame]));
    for (const [parent, ids] of kids) {
      const g = given.get(parent);
      if (ids.length < 2 || (g && "order" in g)) continue;
      if (!sameJSON(byPlace(ids, frames), ids)) {
        const keys = nodes.get(parent).keys;
        keys.accessibility = Object.assign({}, keys.accessibility, { order: ids.slice() });
      }
    }
  }

  _window(m) {
    const views = new Map();
    for (const id of m.order) views.set(id, Object.assign({}, m.nodes.get(id).keys));
    for (const id of m.order) {
      const { parent } = m.nodes.get(id);
      if (parent !== null) { const p = views.get(parent); (p.subviews || (p.subviews = [])).push(views.get(id)); }
    }
    const w = { id: this.id, frame: m.frame, level: this.level, view: views.get(this.rootId) };
    if (this.private) w.private = true;
    if (this.output !== undefined) w.output = this.output;
    return w;
  }

  // The client's copy (what the daemon has, scroll offsets included) as _measure's nodes.
  _fromCopy() {
    const w = this.client.windows.get(this.id);
    const nodes = new Map();
    const stack = [[w.view, null, 0]];
    while (stack.length) {
      const [view, parent, index] = stack.pop();
      const keys = Object.assign({}, view);
      delete keys.subviews;
      nodes.set(view.id, { parent, index, keys });
      (view.subviews || []).forEach((s, i) => stack.push([s, view.id, i]));
    }
    return { frame: w.frame, nodes };
  }

  async _attach() {
    const m = this._measure();
    const reply = await this.client.attach(this._window(m));
    this._sent = { frame: m.frame, nodes: m.nodes };
    return reply;
  }

  // What changed since what the daemon has, as one update's changes.
  _diff(old, m) {
    const changes = [];
    if (!sameJSON(old.frame, m.frame)) changes.push({ window: { frame: m.frame } });
    // A view stays when its parent stays, it has the same parent and its surviving siblings keep
    // their order (pre-order: a parent is decided before its children).
    const stays = new Set([this.rootId]);
    const kids = new Map();
    for (const id of m.order) {
      const { parent } = m.nodes.get(id);
      if (parent !== null) (kids.get(parent) || kids.set(parent, []).get(parent)).push(id);
    }
    for (const id of m.order) {
      if (!stays.has(id)) continue;
      const list = (kids.get(id) || []).filter((c) => old.nodes.has(c) && old.nodes.get(c).parent === id);
      const oldOrder = list.slice().sort((a, b) => old.nodes.get(a).index - old.nodes.get(b).index);
      let i = 0;
      for (const c of list) { if (oldOrder[i] === c) { stays.add(c); i += 1; } }
    }
    // Removals: the highest views that go (their subtrees go with them).
    const gone = new Set();
    for (const [id, o] of old.nodes) {
      if (!stays.has(id)) gone.add(id);
    }
    for (const id of gone) {
      const o = old.nodes.get(id);
      if (o.parent === null || !gone.has(o.parent)) changes.push({ remove: id });
    }
    // Adds, pre-order: a new view with its whole new subtree, at its place among its siblings.
    const added = new Set();
    const subtree = (id) => {
      const keys = Object.assign({}, m.nodes.get(id).keys);
      const subs = m.order.filter((c) => m.nodes.get(c).parent === id).map(subtree);
      if (subs.length) keys.subviews = subs;
      added.add(id);
      return keys;
    };
    const orders = [];       // sets of `order`, after every add (the ids they list must exist)
    const accessibility = (id, o, n, set) => {
      const patch = accessibilityPatch(o.keys.accessibility, n.keys.accessibility);
      if ("order" in patch) { orders.push({ view: id, set: { accessibility: { order: patch.order } } }); delete patch.order; }
      if (Object.keys(patch).length) set.accessibility = patch;
    };
    for (const id of m.order) {
      const n = m.nodes.get(id);
      if (stays.has(id) || added.has(id)) {
        if (stays.has(id) && n.parent !== null) {
          const o = old.nodes.get(id);
          const set = {};
          accessibility(id, o, n, set);
          for (const [k, v] of Object.entries(n.keys)) {
            if (k === "id" || k === "boundsOrigin" || k === "accessibility") continue;
            if (k === "scroll") {
              const s = {};
              for (const [sk, sv] of Object.entries(v)) if (!o.keys.scroll || !sameJSON(o.keys.scroll[sk], sv)) s[sk] = sv;
              if (Object.keys(s).length) set.scroll = s;
            } else if (!sameJSON(o.keys[k], v)) set[k] = v;
          }
          if (n.keys.boundsOrigin && this._pageScrolled(id, o, n, m.dpr)) set.boundsOrigin = n.keys.boundsOrigin;
          if (Object.keys(set).length) changes.push({ view: id, set });
        } else if (stays.has(id)) {        // the root: its frame and what the page says of it
          const set = {};
          if (!sameJSON(old.nodes.get(id).keys.frame, n.keys.frame)) set.frame = n.keys.frame;
          accessibility(id, old.nodes.get(id), n, set);
          if (Object.keys(set).length) changes.push({ view: id, set });
        }
        continue;
      }
      changes.push({ add: subtree(id), to: n.parent, index: n.index });
    }
    return changes.concat(orders);
  }

  // Whether the page itself scrolled this element (not touchd's offset, which it may show clamped).
  _pageScrolled(id, o, n, dpr) {
    const el = this.views.get(id);
    const known = o.keys.boundsOrigin || [0, 0];
    const size = n.keys.scroll.contentSize;
    const frame = n.keys.frame;
    const clamp = (v, max) => Math.min(Math.max(v, 0), Math.max(max, 0));
    const shown = [clamp(known[0], size[0] - frame[2]), clamp(known[1], size[1] - frame[3])];
    const driven = this._driven.get(el);
    if (driven && Math.abs(driven[0] - el.scrollLeft) < 1 && Math.abs(driven[1] - el.scrollTop) < 1) return false;
    return Math.abs(shown[0] - n.keys.boundsOrigin[0]) > dpr || Math.abs(shown[1] - n.keys.boundsOrigin[1]) > dpr;
  }

  _sync() {
    if (this._stopped || !this.client.windows.has(this.id) && this._sent) return;
    if (this._inFlight) { this._dirty = true; return; }
    const m = this._measure();
    if (!this._sent) {   // first time, or after a refusal: the window again, whole
      if (!this.client.windows.has(this.id)) return;
      this._inFlight = this.client.detach(this.id).catch(() => null)
        .then(() => this.client.attach(this._window(m)))
        .then(() => { this._sent = { frame: m.frame, nodes: m.nodes }; }, (e) => this.client._report(e))
        .finally(() => this._settle());
      return;
    }
    const changes = this._diff(this._sent, m);
    if (!changes.length) return;
    const before = this._sent;
    // What the daemon will have once this applies: the measured tree, offsets as touchd keeps them.
    const next = { frame: m.frame, nodes: new Map() };
    for (const [id, n] of m.nodes) {
      const o = before.nodes.get(id);
      const keys = Object.assign({}, n.keys);
      if (keys.boundsOrigin && o && o.keys.boundsOrigin && !changes.some((c) => c.view === id && c.set.boundsOrigin)) {
        keys.boundsOrigin = o.keys.boundsOrigin;
      }
      next.nodes.set(id, { parent: n.parent, index: n.index, keys });
    }
    this._sent = next;
    this.updates += 1;
    this._inFlight = this.client.update(this.id, changes)
      .catch((e) => { this._sent = null; this.client._report(e); })
      .finally(() => this._settle());
  }

  _settle() {
    this._inFlight = null;
    if (this._dirty || !this._sent) { this._dirty = false; this._changed(); }
  }

  // A bounce: past an edge (a negative offset, or past the end) the element cannot scroll, so
  // its children are moved by the rest with the CSS translate property (which _measure takes
  // back out: the views stay where touchd has them), and put back when it returns in range.
  _overscroll(el, dx, dy) {
    const q = (v) => Math.round(v * 64) / 64;      // layout's unit: what is drawn is what _measure takes out
    const over = Math.abs(q(dx)) > 0 || Math.abs(q(dy)) > 0 ? [q(dx), q(dy)] : null;
    if (!over && !this._over.has(el)) return;
    if (over) this._over.set(el, over); else this._over.delete(el);
    for (const child of el.children) child.style.translate = over ? `${-over[0]}px ${-over[1]}px` : "";
  }

  // -- messages to DOM events ----------------------------------------------------------------
  _fire(id, type, detail) {
    const el = this.views.get(id);
    if (!el) return false;
    el.dispatchEvent(new CustomEvent(type, { detail, bubbles: true }));
    return true;
  }

  // The screen reader asks the element to do something: touchd:accessibility, then
  // touchd:<action> (cancelable); unless that is cancelled, what a browser does for it —
  // increment and decrement step a native range or number input (with its input and change
  // events) or press ArrowUp / ArrowDown on another element (an ARIA slider's keys); escape
  // presses Escape on it (a dialog's key to close); activate clicks an element that is not a
  // control, or focuses a text field (a control gets the tap that follows, marked synthesized:
  // its touchd:primaryactiontriggered, and no second press from here).
  _act(msg) {
    const el = this.views.get(msg.view);
    if (el === this.element) return;
    this._fire(msg.view, "touchd:accessibility", msg);
    const go = el.dispatchEvent(new CustomEvent(`touchd:${String(msg.action).toLowerCase()}`, { detail: msg, bubbles: true, cancelable: true }));
    if (!go) return;
    const type = el.localName === "input" ? (el.getAttribute("type") || "").toLowerCase() : null;
    const win = el.ownerDocument.defaultView;
    if (msg.action === "increment" || msg.action === "decrement") {
      const up = msg.action === "increment";
      if (type === "range" || type === "number") {
        if (up) el.stepUp(); else el.stepDown();
        el.dispatchEvent(new win.Event("input", { bubbles: true }));
        el.dispatchEvent(new win.Event("change", { bubbles: true }));
      } else {
        const key = up ? "ArrowUp" : "ArrowDown";
        for (const kind of ["keydown", "keyup"]) el.dispatchEvent(new win.KeyboardEvent(kind, { key, code: key, bubbles: true, cancelable: true }));
      }
    } else if (msg.action === "escape") {
      for (const kind of ["keydown", "keyup"]) el.dispatchEvent(new win.KeyboardEvent(kind, { key: "Escape", code: "Escape", bubbles: true, cancelable: true }));
    } else if (msg.action === "activate" && !el.hasAttribute("data-touchd-control")) {
      const role = roleOf(el);
      if (role === "textbox" || role === "searchbox" || role === "spinbutton" || el.isContentEditable) el.focus();
      else el.click();
    }
  }

  _touch(touch, frame) {
    if (touch.window === this.id && touch.view) this._fire(touch.view, "touchd:touch", Object.assign({}, touch, { frame }));
  }

  _message(msg) {
    switch (msg.type) {
      case "frame":
        for (const t of msg.touches || []) this._touch(t, msg);
        break;
      case "control":
        if (this.views.has(msg.control)) {
          this._fire(msg.control, "touchd:control", msg);
          this._fire(msg.control, `touchd:${String(msg.event).toLowerCase()}`, msg);
        }
        break;
      case "gesture":
        this._fire(msg.view, "touchd:gesture", msg);
        break;
      case "accessibilityFocus":
        if (msg.window === this.id) this._fire(msg.view, "touchd:accessibilityfocus", msg);
        break;
      case "accessibility":
        if (this.views.has(msg.view) && this.client.windows.has(this.id) && (msg.window === undefined || msg.window === this.id)) this._act(msg);
        break;
      case "scroll": {
        const el = this.views.get(msg.view);
        if (!el || el === this.element) break;
        const node = this._sent && this._sent.nodes.get(msg.view);
        if (node) node.keys.boundsOrigin = msg.offset.slice();
        const dpr = el.ownerDocument.defaultView.devicePixelRatio || 1;
        el.scrollLeft = msg.offset[0] / dpr;
        el.scrollTop = msg.offset[1] / dpr;
        this._driven.set(el, [el.scrollLeft, el.scrollTop]);
        // Past an edge only (not the rounding of scrollTop to device pixels): the rest is a bounce.
        const past = (v, max) => (v < 0 ? v : v > max ? v - max : 0);
        const sent = node && node.keys.scroll && node.keys.scroll.contentSize;
        const maxX = (sent ? sent[0] / dpr : el.scrollWidth) - el.clientWidth;
        const maxY = (sent ? sent[1] / dpr : el.scrollHeight) - el.clientHeight;
        this._overscroll(el, past(msg.offset[0] / dpr, maxX), past(msg.offset[1] / dpr, maxY));
        this._fire(msg.view, "touchd:scroll", msg);
        break;
      }
      default:
    }
  }
}

function parseAttribute(el, name, text) {
  try { return JSON.parse(text); } catch (e) {
    throw new Error(`${name} of <${el.tagName.toLowerCase()} data-touchd-view="${el.getAttribute("data-touchd-view")}">: not JSON (${e.message})`);
  }
}
