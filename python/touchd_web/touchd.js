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
  "calibration", "calibrationEnded"]);
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

// A subtree as adds in pre-order, each view with its subviews left out (the first at `index`).
function addsOf(view, to, index) {
  const out = [];
  const stack = [[view, to, index]];
  while (stack.length) {
    const [v, parent, i] = stack.pop();
    const change = { add: v.id === undefined ? v : shallow(v), to: parent };
    if (i !== undefined) change.index = i;
    out.push(change);
    if (v.id !== undefined) for (const sub of (v.subviews || []).slice().reverse()) stack.push([sub, v.id, undefined]);
  }
  return out;
}

/**
 * The requests that attach `window` within maxRequest bytes a line: one attach when it fits,
 * else (as the Python client) the window hidden with its root view alone, then updates adding
 * the other views in order, the last one showing it.
 */
export function attachRequests(window, maxRequest = 65536) {
  if (byteLength({ attach: window }) <= maxRequest || !window.view || window.view.id === undefined) return [["attach", window]];
  const shell = Object.assign({}, window, { hidden: true, view: shallow(window.view) });
  const changes = [];
  for (const sub of window.view.subviews || []) changes.push(...addsOf(sub, window.view.id));
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
    this._observe();
  }

  /** Measure on the next animation frame and send what changed, and every frame while an
   * animation runs on, under or above the element (normally done for you: call it after
   * element.animate(), which fires no event). */
  refresh() { this._changed(); }

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
    for (const [target, type, fn, opts] of this._listeners || []) target.removeEventListener(type, fn, opts);
  }

  _observe() {
    const changed = () => this._changed();
    this._resize = new ResizeObserver(changed);
    this._mutation = new MutationObserver((records) => {
      // Our own scroll driving changes no attribute; any DOM change may move views.
      if (records.some((r) => r.type === "childList")) this._observeSizes();
      changed();
    });
    this._mutation.observe(this.element, { subtree: true, childList: true, attributes: true, characterData: true });
    const doc = this.element.ownerDocument;
    const win = doc.defaultView;
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
      ...["transitionrun", "transitionend", "transitioncancel", "animationstart", "animationend", "animationcancel"]
        .map((type) => [doc, type, animated, quiet])];
    for (const [t, type, fn, opts] of this._listeners) t.addEventListener(type, fn, opts);
    this._observeSizes();
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
    nodes.set(this.rootId, { parent: null, index: 0, keys: { id: this.rootId,
      frame: [0, 0, round(er.width * dpr), round(er.height * dpr)], hitTest: "passthrough" } });
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
    const frame = [round(ox + er.left * dpr), round(oy + er.top * dpr), round(er.width * dpr), round(er.height * dpr)];
    return { frame, nodes, order, dpr };
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
    for (const id of m.order) {
      const n = m.nodes.get(id);
      if (stays.has(id) || added.has(id)) {
        if (stays.has(id) && n.parent !== null) {
          const o = old.nodes.get(id);
          const set = {};
          for (const [k, v] of Object.entries(n.keys)) {
            if (k === "id" || k === "boundsOrigin") continue;
            if (k === "scroll") {
              const s = {};
              for (const [sk, sv] of Object.entries(v)) if (!o.keys.scroll || !sameJSON(o.keys.scroll[sk], sv)) s[sk] = sv;
              if (Object.keys(s).length) set.scroll = s;
            } else if (!sameJSON(o.keys[k], v)) set[k] = v;
          }
          if (n.keys.boundsOrigin && this._pageScrolled(id, o, n, m.dpr)) set.boundsOrigin = n.keys.boundsOrigin;
          if (Object.keys(set).length) changes.push({ view: id, set });
        } else if (stays.has(id) && !sameJSON(old.nodes.get(id).keys.frame, n.keys.frame)) {
          changes.push({ view: id, set: { frame: n.keys.frame } });
        }
        continue;
      }
      changes.push({ add: subtree(id), to: n.parent, index: n.index });
    }
    return changes;
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
