// Run by test_web.py with node on a copy of touchd.js (node needs .mjs): a window too big for one
// request line is attached in pieces that each fit and together give the window back.
import { attachRequests, updateRequests, applyChanges } from "./touchd.mjs";

const max = Number(process.argv[2] || 65536);
const rows = [];
for (let i = 0; i < 1500; i++) rows.push({ id: `row${i}`, frame: [0, i * 60, 240, 60], control: "button", subviews: [{ id: `label${i}`, frame: [8, 8, 100, 20] }] });
const window = { id: "big", frame: [0, 0, 800, 480], level: 2, view: { id: "root", frame: [0, 0, 800, 480], hitTest: "passthrough",
  subviews: [{ id: "list", frame: [0, 0, 240, 480], scroll: { contentSize: [240, 90000] }, subviews: rows }, { id: "ok", frame: [300, 0, 80, 40] }] } };
// Reading orders (accessibility.order) naming views: each must name views that exist when its
// request is checked (the daemon checks an update's changes in order).
window.view.accessibility = { order: ["ok", "list"] };
window.view.subviews[0].accessibility = { order: rows.map((r) => r.id).reverse(), label: "Rows" };
const ids = (view, into) => { into.add(view.id); for (const s of view.subviews || []) ids(s, into); return into; };
function ordersNameLiving(requests) {
  const living = new Set();
  const inside = (view) => {
    const mine = ids(view, new Set());
    for (const v of [view, ...(view.subviews || [])]) {
      for (const id of (v.accessibility && v.accessibility.order) || []) if (!mine.has(id)) return false;
    }
    return true;
  };
  for (const [kind, body] of requests) {
    if (kind === "attach") { if (!inside(body.view)) return false; ids(body.view, living); continue; }
    for (const c of body.changes) {
      if ("add" in c) { if (!inside(c.add)) return false; ids(c.add, living); }
      if ("set" in c) for (const id of (c.set.accessibility && c.set.accessibility.order) || []) if (!living.has(id)) return false;
    }
  }
  return true;
}
// JSON with each object's keys sorted: a deferred set puts `order` last among its view's keys.
const canonical = (v) => JSON.stringify(v, (k, x) => (x && typeof x === "object" && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((key) => [key, x[key]])) : x));
const out = {};
const requests = attachRequests(window, max);
out.ordersNameLiving = ordersNameLiving(requests);
out.requests = requests.length;
out.kinds = [...new Set(requests.map(([k]) => k))];
out.longest = Math.max(...requests.map(([k, b]) => new TextEncoder().encode(JSON.stringify({ [k]: b })).length));
const rebuilt = JSON.parse(JSON.stringify(requests[0][1]));
out.shellHidden = rebuilt.hidden;
for (const [, body] of requests.slice(1)) applyChanges(rebuilt, body.changes);
out.same = canonical(rebuilt) === canonical(Object.assign({}, window, { hidden: false }));
// An update adding the whole list again somewhere else: split into adds that fit.
const updates = updateRequests("big", [{ remove: "list" }, { add: window.view.subviews[0], to: "root", index: 0 }], max);
out.updates = updates.length;
out.updateLongest = Math.max(...updates.map(([k, b]) => new TextEncoder().encode(JSON.stringify({ [k]: b })).length));
const again = JSON.parse(JSON.stringify(window));
for (const [, body] of updates) applyChanges(again, body.changes);
out.updateSame = canonical(again) === canonical(window);
out.updateOrdersNameLiving = ordersNameLiving([["attach", { id: "big", view: { id: "root" } }], ...updates]);
out.small = attachRequests({ id: "s", frame: [0, 0, 1, 1], view: { id: "v" } }, max).length;
console.log(JSON.stringify(out));
