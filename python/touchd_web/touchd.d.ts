// Types of touchd.js (served by touchd-web at /touchd.d.ts beside /touchd.js). Messages are as
// docs/messages.md and docs/protocol.md describe them; the common ones are typed, every
// message keeps its other fields.

export type Point = [number, number];
export type Rect = [number, number, number, number];

export interface Message { type: string; seq?: number; sub?: number; time?: number; [key: string]: unknown; }

export interface Hello extends Message {
  type: "hello"; protocol: number; version: string; screen: { width: number; height: number }; pid: number;
  outputs?: Array<{ id: string; width: number; height: number; rotation: number }>;
}

export interface Touch {
  id: number; phase: "began" | "moved" | "stationary" | "ended" | "cancelled";
  window: string | null; view: string | null; location: Point; previous: Point; locationInView?: Point;
  timestamp?: number; tapCount?: number; pressure?: number; major?: number; tool?: string; reason?: string;
  output?: string; [key: string]: unknown;
}

export interface Frame extends Message { type: "frame"; device: string; touches: Touch[]; }
export interface Control extends Message { type: "control"; control: string; event: string; touch: number; }
export interface Gesture extends Message { type: "gesture"; recognizer: string; kind: string; view: string; state: string; touches: number[]; location: Point; }
export interface Scroll extends Message { type: "scroll"; view: string; offset: Point; dragging: boolean; decelerating: boolean; }
/** The screen reader's focus moved to `view` (docs/messages.md "The screen reader"). */
export interface AccessibilityFocus extends Message { type: "accessibilityFocus"; output: string; window: string; view: string; }
/** The screen reader asks the element `view` (null: none focused) to act. */
export interface AccessibilityAction extends Message {
  type: "accessibility"; output: string; action: "activate" | "increment" | "decrement" | "escape" | "magicTap"; view: string | null;
}
/** Something the screen reader says (`text`), or a pause of its speech. */
export interface Speech extends Message {
  type: "speech"; output: string; text?: string; interrupt?: boolean; language?: string; rate?: number; private?: boolean;
  pause?: boolean; control?: "pause" | "resume";
}
export interface Reply extends Message { line?: number; window?: string; version?: number; }
export interface ErrorReply extends Message { type: "error"; error: string; line?: number; request?: string; window?: string; path?: string; }

/** A trait of an accessibility element (docs/config.md "Accessibility"). */
export type Trait = "button" | "link" | "header" | "image" | "staticText" | "adjustable" | "selected" | "notEnabled"
  | "key" | "searchField" | "summary" | "updatesFrequently";

/** A view's `accessibility` (UIAccessibility's properties; docs/config.md "Accessibility"). */
export interface Accessibility {
  label?: string; value?: string; hint?: string; traits?: Trait[]; element?: boolean; hidden?: boolean;
  modal?: boolean; secure?: boolean; activationPoint?: Point; language?: string; order?: string[];
}
/** In an update's set: the keys given replace those, null resets one. */
export type AccessibilityPatch = { [K in keyof Accessibility]?: Accessibility[K] | null };

/** A view, as a config's views and attach requests take it (docs/config.md). */
export interface View { id: string; frame?: Rect; subviews?: View[]; accessibility?: Accessibility; [key: string]: unknown; }
export interface Window { id: string; frame: Rect; level?: number; view?: View; hidden?: boolean; private?: boolean; output?: string; [key: string]: unknown; }
export type Change =
  | { view: string; set: Record<string, unknown> }
  | { window: Record<string, unknown> }
  | { add: View; to: string; index?: number }
  | { remove: string };

export class TouchdError extends Error { reply: ErrorReply; constructor(reply: ErrorReply | string); }
export class ConnectionLost extends Error { constructor(reason: string); }

export function applyChanges(window: Window, changes: Change[]): void;
/** The requests attaching `window` within maxRequest bytes a line (the client does this itself). */
export function attachRequests(window: Window, maxRequest?: number): Array<["attach" | "update", object]>;
/** An update's changes as updates of at most maxRequest bytes each. */
export function updateRequests(windowId: string, changes: Change[], maxRequest?: number): Array<["update", object]>;

export interface ClientOptions {
  /** Default: #token=… of location.hash; sent as the subprotocol "touchd.TOKEN". */
  token?: string | null;
  /** Default true: reconnect (0.1 s doubling to 2 s), then subscribe and attach again. */
  reconnect?: boolean;
  /** Seconds a request waits for its reply (default 5). */
  timeout?: number;
  /** A first connect that fails keeps trying instead of rejecting. */
  wait?: boolean;
}

export interface Filter { types?: string[]; windows?: string[]; views?: string[]; maxRate?: number; }

/** The accessibility keys bind derives for an element (docs/web.md "Read by the page's own
 * names"): its accessible name, role, states and description, then data-touchd-accessibility.
 * container: it has views under it (never one element then); refs gets the elements outside it
 * its name and description were read from. */
export function accessibilityOf(element: Element, options?: { container?: boolean; refs?: Set<Element> }): Accessibility;

export interface BindOptions {
  /** The window's id (unique in the whole scene). */
  window: string;
  level?: number;
  private?: boolean;
  output?: string;
  /** Where the page's viewport is on the output, in its points (default [0, 0]: a full-screen kiosk). */
  origin?: Point;
  /** The root view's id (default `${window}.root`). */
  root?: string;
}

export type Unsubscribe = () => void;

export class TouchdClient {
  constructor(url?: string, options?: ClientOptions);
  readonly url: string;
  token: string | null;
  reconnect: boolean;
  timeout: number;
  wait: boolean;
  hello: Hello | null;
  readonly connected: boolean;
  readonly screen: [number, number] | null;
  readonly windows: Map<string, Window>;
  /** The daemon's limit on a request line (65,536): bigger attaches and updates are split. */
  maxRequest: number;

  connect(): Promise<Hello>;
  close(): void;
  attach(window: Window): Promise<Reply | null>;
  update(windowId: string, changes: Change[]): Promise<Reply | null>;
  detach(windowId: string): Promise<Reply | null>;
  subscribe(filter?: Filter): Promise<Message>;
  /** Resolves with the round trip's seconds. */
  ping(value?: number | string): Promise<number>;
  rotateOutput(outputId: string, rotation: 0 | 90 | 180 | 270): Promise<Reply>;
  calibrate(device: string, targets?: Point[]): Promise<Message>;
  cancelCalibration(device: string): Promise<Message>;
  screenReader(output: string, on: boolean): Promise<Reply>;
  announce(output: string, text: string): Promise<Reply>;
  accessibilityChanged(output: string, changed: { screen?: boolean; layout?: boolean; focus?: string | null }): Promise<Reply>;
  stats(): Promise<Message>;
  bind(element: Element, options: BindOptions): Promise<Binding>;

  onTouch(fn: (touch: Touch, frame: Frame | null) => void): Unsubscribe;
  onFrame(fn: (frame: Frame) => void): Unsubscribe;
  onControl(fn: (msg: Control) => void): Unsubscribe;
  onGesture(fn: (msg: Gesture) => void): Unsubscribe;
  onScroll(fn: (msg: Scroll) => void): Unsubscribe;
  onCalibration(fn: (msg: Message) => void): Unsubscribe;
  onAccessibility(fn: (msg: AccessibilityFocus | AccessibilityAction) => void): Unsubscribe;
  onSpeech(fn: (msg: Speech) => void): Unsubscribe;
  onMessage(fn: (msg: Message) => void): Unsubscribe;
  onConnect(fn: (hello: Hello) => void): Unsubscribe;
  onDisconnect(fn: (reason: string) => void): Unsubscribe;
  onError(fn: (error: Error) => void): Unsubscribe;
}

export class Binding {
  readonly client: TouchdClient;
  readonly element: Element;
  readonly id: string;
  readonly rootId: string;
  /** Updates sent so far. */
  readonly updates: number;
  /** View id → its element (the root view: the bound element). */
  readonly views: Map<string, Element>;
  /** Measure on the next frame, and every frame while an animation runs on, under or above the
   * element (call it after element.animate(), which no event announces; CSS transitions and
   * animations are noticed by themselves). */
  refresh(): void;
  unbind(): Promise<Reply | null>;
}

/** The DOM events bind dispatches on a view's element (they bubble). */
declare global {
  interface ElementEventMap {
    "touchd:touch": CustomEvent<Touch & { frame: Frame | null }>;
    "touchd:control": CustomEvent<Control>;
    "touchd:gesture": CustomEvent<Gesture>;
    "touchd:scroll": CustomEvent<Scroll>;
    /** On the bound element: the daemon took the window (reason "preempted"); the binding stopped. */
    "touchd:detached": CustomEvent<Message>;
    "touchd:touchdown": CustomEvent<Control>;
    "touchd:touchdownrepeat": CustomEvent<Control>;
    "touchd:touchdraginside": CustomEvent<Control>;
    "touchd:touchdragoutside": CustomEvent<Control>;
    "touchd:touchdragenter": CustomEvent<Control>;
    "touchd:touchdragexit": CustomEvent<Control>;
    "touchd:touchupinside": CustomEvent<Control>;
    "touchd:touchupoutside": CustomEvent<Control>;
    "touchd:touchcancel": CustomEvent<Control>;
    "touchd:primaryactiontriggered": CustomEvent<Control>;
    /** The screen reader's focus is on this view. */
    "touchd:accessibilityfocus": CustomEvent<AccessibilityFocus>;
    /** Every action of the screen reader on this view, then the action's own event below. */
    "touchd:accessibility": CustomEvent<AccessibilityAction>;
    /** Cancelable: preventDefault() keeps touchd.js from doing what a browser would (docs/web.md). */
    "touchd:activate": CustomEvent<AccessibilityAction>;
    "touchd:increment": CustomEvent<AccessibilityAction>;
    "touchd:decrement": CustomEvent<AccessibilityAction>;
    "touchd:escape": CustomEvent<AccessibilityAction>;
    "touchd:magictap": CustomEvent<AccessibilityAction>;
  }
}
