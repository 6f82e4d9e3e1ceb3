// Must NOT type-check (test_web.py): a rotation that is not a right angle, a bind without its
// window, a trait touchd does not have.
import { TouchdClient, Accessibility } from "../../touchd_web/touchd";

const ui = new TouchdClient();
ui.rotateOutput("DSI-1", 45);
ui.bind(document.body, { level: 1 });
const a: Accessibility = { label: "PIN", traits: ["textField"] };
