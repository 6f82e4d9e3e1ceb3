// Type-checked against touchd.d.ts by test_web.py (tsc --strict): the documented API as a page uses it.
import { TouchdClient, Binding, Touch, Frame, TouchdError, Accessibility, accessibilityOf } from "../../touchd_web/touchd";

const ui = new TouchdClient(undefined, { reconnect: true, timeout: 5 });

export async function main(): Promise<number> {
  const hello = await ui.connect();
  const width: number = hello.screen.width;
  const b: Binding = await ui.bind(document.body, { window: "menu", level: 0, private: false, output: "DSI-1", origin: [0, 0] });
  const off = ui.onTouch((t: Touch, f: Frame | null) => { const x: number = t.location[0]; return x + (f ? f.touches.length : 0); });
  off();
  ui.onControl((m) => { const e: string = m.event; return e; });
  ui.onScroll((m) => m.offset[1]);
  ui.onGesture((m) => m.state);
  ui.onMessage((m) => m.type);
  ui.onError((e) => { if (e instanceof TouchdError) return e.reply.error; return e.message; });
  document.body.addEventListener("touchd:primaryactiontriggered", (e) => { const c: string = e.detail.control; return c; });
  document.body.addEventListener("touchd:scroll", (e) => e.detail.offset[0]);
  ui.onSpeech((m) => { const said: string | undefined = m.text; return said; });
  ui.onAccessibility((m) => (m.type === "accessibility" ? m.action : m.view));
  document.body.addEventListener("touchd:increment", (e) => { if (e.detail.view === "volume") e.preventDefault(); });
  document.body.addEventListener("touchd:accessibilityfocus", (e) => e.detail.window);
  const derived: Accessibility = accessibilityOf(document.body, { container: false });
  const label: string | undefined = derived.label;
  await ui.screenReader("DSI-1", true);
  await ui.announce("DSI-1", "Card accepted");
  await ui.accessibilityChanged("DSI-1", { layout: true, focus: "ok" });
  await ui.update("menu", [{ view: "ok", set: { accessibility: { label: label ?? "OK", traits: ["button", "selected"], hint: null } } }]);
  const seconds: number = await ui.ping();
  await ui.attach({ id: "w", frame: [0, 0, 10, 10], view: { id: "r", frame: [0, 0, 10, 10] } });
  await ui.update("menu", [{ view: "ok", set: { hidden: true } }, { add: { id: "x" }, to: "r", index: 0 }, { remove: "x" }]);
  await ui.subscribe({ types: ["control"] });
  await ui.rotateOutput("DSI-1", 90);
  await ui.calibrate("event5", [[10, 10], [700, 10], [400, 400]]);
  b.refresh();
  await b.unbind();
  ui.close();
  return width + seconds + b.updates;
}
