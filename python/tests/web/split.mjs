// Run by test_web.py with node on a copy of touchd.js (node needs .mjs): a window too big for one
// request line is attached in pieces that each fit and together give the window back.
import { attachRequests, updateRequests, applyChanges } from "./touchd.mjs";

const max = Number(process.argv[2] || 65536);
const rows = [];
for (let i = 0; i < 1500; i++) rows.push({ id: `row${i}`, frame: [0, i * 60, 240, 60], control: "button", subviews: [{ id: `label${i}`, frame: [8, 8, 100, 20] }] });
const window = { id: "big", frame: [0, 0, 800, 480], level: 2, view: { id: "root", frame: [0, 0, 800, 480], hitTest: "passthrough",
  subviews: [{ id: "list", frame: [0, 0, 240, 480], scroll: { contentSize: [240, 90000] }, subviews: rows }, { id: "ok", frame: [300, 0, 80, 40] }] } };
const out = {};
const requests = attachRequests(window, max);
out.requests = requests.length;
out.kinds = [...new Set(requests.map(([k]) => k))];
out.longest = Math.max(...requests.map(([k, b]) => new TextEncoder().encode(JSON.stringify({ [k]: b })).length));
const rebuilt = JSON.parse(JSON.stringify(requests[0][1]));
out.shellHidden = rebuilt.hidden;
for (const [, body] of requests.slice(1)) applyChanges(rebuilt, body.changes);
out.same = JSON.stringify(rebuilt) === JSON.stringify(Object.assign({}, window, { hidden: false }));
// An update adding the whole list again somewhere else: split into adds that fit.
const updates = updateRequests("big", [{ remove: "list" }, { add: window.view.subviews[0], to: "root", index: 0 }], max);
out.updates = updates.length;
out.updateLongest = Math.max(...updates.map(([k, b]) => new TextEncoder().encode(JSON.stringify({ [k]: b })).length));
const again = JSON.parse(JSON.stringify(window));
for (const [, body] of updates) applyChanges(again, body.changes);
out.updateSame = JSON.stringify(again) === JSON.stringify(window);
out.small = attachRequests({ id: "s", frame: [0, 0, 1, 1], view: { id: "v" } }, max).length;
console.log(JSON.stringify(out));
