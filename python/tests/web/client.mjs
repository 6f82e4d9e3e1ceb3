// Run by test_web.py with node on a copy of touchd.js (touchd.mjs): TouchdClient against a fake
// WebSocket whose messages this script writes — the protocol's corners a replay does not reach.
// Prints "ok NAME" per check; any failure throws (exit code 1) naming what differed.
import { TouchdClient, TouchdError } from "./touchd.mjs";

const sockets = [];
class FakeSocket {
  constructor(url, protocols) { this.url = url; this.protocols = protocols; this.readyState = 1; this.sent = []; sockets.push(this); }
  send(data) { this.sent.push(JSON.parse(data)); }
  close() { this.readyState = 3; }
  push(msg) { this.onmessage({ data: JSON.stringify(msg) }); }
  drop(reason) { this.readyState = 3; if (this.onclose) this.onclose({ code: 1006, reason }); }
}
globalThis.WebSocket = FakeSocket;
globalThis.location = { protocol: "http:", host: "kiosk.local:8470", hash: "#token=s3cret&x=1" };

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
const same = (name, got, want) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  console.log(`ok ${name}`);
};
const HELLO = { type: "hello", protocol: 1, version: "0.2.0", screen: { width: 800, height: 480 }, pid: 1 };

const ui = new TouchdClient();
const touches = [], messages = [], disconnects = [], errors = [];
ui.onTouch((t, frame) => touches.push([t.id, t.phase, t.reason || null, frame ? frame.seq : null]));
ui.onMessage((m) => messages.push(m.type));
ui.onDisconnect((r) => disconnects.push(r));
ui.onError((e) => errors.push(e.message));

// Connecting: the URL and the token's subprotocol from this page's location.
const connected = ui.connect();
const ws = sockets[0];
same("url and token", [ws.url, ws.protocols], ["ws://kiosk.local:8470/socket", ["touchd.s3cret"]]);
ws.push(HELLO);
same("connect resolves with hello", (await connected).pid, 1);

// The greeting snapshot arrives after a subscribe was sent: it is news, not the reply.
const subscribed = ui.subscribe({ types: ["frame", "control"] });
ws.push({ type: "snapshot", seq: 1, touches: [] });
ws.push({ type: "snapshot", seq: 2, touches: [] });
same("subscribe's reply is the snapshot after the greeting", (await subscribed).seq, 2);
same("sent so far", ws.sent, [{ subscribe: { types: ["frame", "control"] } }]);

// Requests matched by line: line 2 attach, line 3 update refused, line 4 update accepted.
const attached = ui.attach({ id: "w", frame: [0, 0, 100, 100], view: { id: "r", frame: [0, 0, 100, 100],
  subviews: [{ id: "list", frame: [0, 0, 50, 100], scroll: { contentSize: [50, 400] } }] } });
ws.push({ type: "attached", window: "w", version: 1, line: 2 });
same("attach resolves with its reply", (await attached).version, 1);
const refused = ui.update("w", [{ view: "nope", set: { hidden: true } }]);
const accepted = ui.update("w", [{ view: "r", set: { alpha: 0.5 } }]);
ws.push({ type: "updated", window: "w", version: 2, line: 4 });
ws.push({ type: "error", error: "no view", path: "changes[0].view", line: 3 });
same("replies out of order go to their requests", (await accepted).version, 2);
try { await refused; throw new Error("the refused update resolved"); } catch (e) {
  same("a refusal rejects with a TouchdError", [e instanceof TouchdError, e.reply.path], [true, "changes[0].view"]);
}
const pinged = ui.ping("p");
ws.push({ type: "pong", ping: "p" });
same("ping resolves with seconds", typeof (await pinged), "number");

// Touches: two go down; an overflow's snapshot lists only one: the other ends, reason overflow.
ws.push({ type: "frame", seq: 3, touches: [{ id: 7, phase: "began" }, { id: 8, phase: "began" }] });
ws.push({ type: "scroll", seq: 4, view: "list", offset: [0, 120], dragging: true, decelerating: false });
ws.push({ type: "overflow", dropped: 5 });
ws.push({ type: "snapshot", seq: 9, touches: [{ id: 8, phase: "stationary" }] });
same("overflow ends the touch its snapshot lacks", touches, [[7, "began", null, 3], [8, "began", null, 3], [7, "cancelled", "overflow", null]]);

// The connection goes: every touch down ends, reason disconnected, then onDisconnect.
ws.drop("gone");
same("a closed connection ends the touches", touches.slice(3), [[8, "cancelled", "disconnected", null]]);
same("then onDisconnect", disconnects, ["gone"]);
let lost = null;
await ui.ping().catch((e) => { lost = e.name; });
same("a request while disconnected rejects", lost, "ConnectionLost");
same("an update while disconnected changes the copy", await ui.update("w", [{ view: "r", set: { hidden: true } }]), null);

// Reconnecting (0.1 s): the subscription again, then the window as the copy has it (every
// accepted change and the scroll offset the daemon reported), before connect's callbacks.
await tick(250);
const ws2 = sockets[1];
same("a second socket", sockets.length, 2);
ws2.push(HELLO);
await tick();
same("subscribe again first", ws2.sent[0], { subscribe: { types: ["frame", "control"] } });
ws2.push({ type: "snapshot", seq: 10, touches: [] });
ws2.push({ type: "snapshot", seq: 10, touches: [] });
await tick();
same("then the window, as it is now", ws2.sent[1], { attach: { id: "w", frame: [0, 0, 100, 100], view: { id: "r", frame: [0, 0, 100, 100],
  subviews: [{ id: "list", frame: [0, 0, 50, 100], scroll: { contentSize: [50, 400] }, boundsOrigin: [0, 120] }], alpha: 0.5, hidden: true } } });
ws2.push({ type: "attached", window: "w", version: 1, line: 2 });
await tick();
same("connected again", ui.connected, true);

// Notices that answer nothing: a level moved into our range, then the window taken from us.
ws2.push({ type: "updated", window: "w", version: 2, level: 5, reason: "policy" });
same("a level notice moves the copy's level", ui.windows.get("w").level, 5);
ws2.push({ type: "detached", window: "w", reason: "preempted" });
same("a preempted window leaves the copy", ui.windows.has("w"), false);
same("no error on the way", errors, []);
// Every message but the replies (a subscribe's snapshot is news too, as in the Python client).
same("onMessage got the news, no reply", messages, ["hello", "snapshot", "snapshot", "frame", "scroll", "overflow", "snapshot",
  "hello", "snapshot", "snapshot", "updated", "detached"]);

// The screen reader: its requests answered by line; its focus and actions to onAccessibility,
// its speech to onSpeech (and onMessage); set's accessibility merged into the copy (null drops).
const reader = ui.screenReader("main", true);
same("screenReader sends", ws2.sent[ws2.sent.length - 1], { screenReader: { output: "main", on: true } });
ws2.push({ type: "screenReader", output: "main", on: true, line: 3 });
same("screenReader resolves with its reply", (await reader).on, true);
const changed = ui.accessibilityChanged("main", { layout: true, focus: "ok" });
same("accessibilityChanged sends", ws2.sent[ws2.sent.length - 1], { accessibilityChanged: { output: "main", layout: true, focus: "ok" } });
ws2.push({ type: "accessibilityChanged", output: "main", focus: "ok", line: 4 });
same("accessibilityChanged resolves", (await changed).focus, "ok");
const heard = [];
ui.onAccessibility((m) => heard.push([m.type, m.view, m.action || null]));
ui.onSpeech((m) => heard.push([m.type, m.text]));
ws2.push({ type: "accessibilityFocus", seq: 11, output: "main", window: "v", view: "ok" });
ws2.push({ type: "speech", seq: 12, output: "main", text: "OK, button", interrupt: true });
ws2.push({ type: "accessibility", seq: 13, output: "main", action: "activate", view: "ok" });
same("focus, speech and action to their callbacks", heard, [["accessibilityFocus", "ok", null], ["speech", "OK, button"], ["accessibility", "ok", "activate"]]);
const made = ui.attach({ id: "v", frame: [0, 0, 10, 10], view: { id: "v.root", frame: [0, 0, 10, 10],
  subviews: [{ id: "ok", frame: [0, 0, 5, 5], accessibility: { label: "OK", traits: ["button"] } }] } });
ws2.push({ type: "attached", window: "v", version: 1, line: 5 });
await made;
const merged = ui.update("v", [{ view: "ok", set: { accessibility: { hint: "Confirms", label: null } } }]);
ws2.push({ type: "updated", window: "v", version: 2, line: 6 });
await merged;
same("set's accessibility merges into the copy", ui.windows.get("v").view.subviews[0].accessibility, { traits: ["button"], hint: "Confirms" });
same("still no error", errors, []);
ui.close();
