"""The program's windows as the client keeps them: views found and copied without recursion,
the changes the daemon accepted applied to the copy, and a window too big for one request line
split into an attach and updates."""
from .errors import TouchdError


def find(view, vid):
    """(view, parent) for the view with id vid in the tree under view, or (None, None).
    Iterative, like every walk over a tree here: a tree may be nested deeper than Python's
    recursion limit (the daemon takes any depth one update at a time)."""
    stack = [(view, None)]
    while stack:
        node, parent = stack.pop()
        if node.get("id") == vid:
            return node, parent
        subs = node.get("subviews")
        if isinstance(subs, list):
            stack.extend((sub, node) for sub in reversed(subs) if isinstance(sub, dict))
    return None, None


def copy(value):
    """A deep copy of a JSON value (dicts, lists/tuples, scalars), iteratively."""
    if not isinstance(value, (dict, list, tuple)):
        return value
    root = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        src, dst = stack.pop()
        for key, item in (src.items() if isinstance(src, dict) else enumerate(src)):
            if isinstance(item, (dict, list, tuple)):
                item_copy = {} if isinstance(item, dict) else []
                stack.append((item, item_copy))
            else:
                item_copy = item
            if isinstance(dst, dict):
                dst[key] = item_copy
            else:
                dst.append(item_copy)
    return root


def _view(window, vid):
    view, parent = find(window.get("view") or {}, vid)
    if view is None:
        raise KeyError("no view %r in window %r" % (vid, window.get("id")))
    return view, parent


def apply_changes(window, changes):
    """Apply an update's changes to a window dict in place (the daemon already accepted them)."""
    for change in changes:
        if "set" in change:
            view = _view(window, change["view"])[0]
            keys = copy(change["set"])
            # set.scroll changes some of a scroll view's keys: the others stay.
            if isinstance(keys.get("scroll"), dict) and isinstance(view.get("scroll"), dict):
                view["scroll"] = dict(view["scroll"], **keys.pop("scroll"))
            # set.accessibility merges too: the keys given replace those, null resets one.
            if isinstance(keys.get("accessibility"), dict):
                merged = dict(view.get("accessibility") or {}, **keys.pop("accessibility"))
                view["accessibility"] = {k: v for k, v in merged.items() if v is not None}
            view.update(keys)
        elif "window" in change:
            window.update(copy(change["window"]))
        elif "add" in change:
            subviews = _view(window, change["to"])[0].setdefault("subviews", [])
            subviews.insert(change.get("index", len(subviews)), copy(change["add"]))
        elif "remove" in change:
            view, parent = _view(window, change["remove"])
            if parent is None:
                window.pop("view", None)
            else:
                parent["subviews"].remove(view)


def attach_requests(window, encode, max_request):
    """The requests that attach window, as (kind, body, line or None): one attach when it fits
    in one request line (max_request bytes, and the nesting encode(kind, body) allows), else an
    attach of the window hidden with its root view alone, then updates adding every other view
    in order (each update as many views as fit in one line), the last one restoring the
    window's hidden."""
    try:
        line = encode("attach", window)
        if len(line) <= max_request:
            return [("attach", window, line)]
    except TouchdError:
        pass
    return _split(window, encode, max_request)


def _split(window, encode, max_request):
    root = window.get("view")
    if not isinstance(root, dict) or "id" not in root:
        return [("attach", window, encode("attach", window))]   # nothing to split: let the daemon judge
    shallow = lambda view: {k: v for k, v in view.items() if k != "subviews"}   # noqa: E731
    shell = {k: v for k, v in window.items() if k != "view"}
    shell["hidden"] = True
    shell["view"] = shallow(root)
    requests = [("attach", shell, encode("attach", shell))]
    changes = []    # pre-order, each child after its parent and after its elder siblings
    stack = [(sub, root["id"]) for sub in reversed(root.get("subviews") or [])]
    while stack:
        view, parent = stack.pop()
        if "id" in view:
            changes.append({"add": shallow(view), "to": parent})
            stack.extend((sub, view["id"]) for sub in reversed(view.get("subviews") or []))
        else:                                   # no id to add its subviews to: whole
            changes.append({"add": view, "to": parent})
    changes.append({"window": {"hidden": bool(window.get("hidden", False))}})
    wid = window["id"]
    head = len(encode("update", {"window": wid, "changes": []}))
    batch, size = [], head
    for change in changes:
        encoded = encode("x", change)     # {"x":CHANGE}: 6 bytes more than CHANGE
        cost = len(encoded) - 6 + (1 if batch else 0)
        if batch and size + cost > max_request:
            requests.append(("update", {"window": wid, "changes": batch}, None))
            batch, size = [], head
            cost = len(encoded) - 6
        if head + cost > max_request:
            raise TouchdError({"error": "attach %r: a view longer than one request line (%d bytes)"
                               % (wid, max_request), "request": "attach", "window": wid})
        batch.append(change)
        size += cost
    requests.append(("update", {"window": wid, "changes": batch}, None))
    return requests
