"""What touchd speak says, and when: touchd's messages in, SSIP steps out. Pure (no socket, no
clock): Speaker keeps the state one SSIP connection has and turns each message into the
commands that speak it, so the rules are tested with plain values and the wire by the fake
server (python/tests/speech).

The rules (docs/accessibility.md, "Speech"):

- Every utterance has SSIP's priority `message` (set once per connection): messages of that
  priority are queued in order and never cut each other off, unlike `text`, which keeps only
  the latest. So an announcement (`"interrupt": false`) waits for what is being said, and a
  new focus (`"interrupt": true`) is preceded by `CANCEL self`, which silences this client's
  speech and drops what it queued — VoiceOver's habit: moving the finger cuts the old element
  short, an announcement waits its turn.
- `language` and `rate` (messages.md: from the element, else the config's `speech`) are set
  before the SPEAK that needs them, only when they differ from what the connection has; an
  utterance without them goes back to the server's defaults, read when the connection began
  (`GET LANGUAGE`, `GET RATE`). A language that is not a language tag (letters, digits and
  hyphens) or a rate outside SSIP's -100…100 is ignored with a warning: neither reaches a
  command line, where a line break would be a second command.
- `"private": true` marks the text of a private window or a secure element (only a speaker
  the policy names, or the window's owner, receives it). It is spoken only while touchd has
  said headphones are plugged into that output (`headphones` messages, the snapshot's
  `headphones`): otherwise it is dropped. When they are pulled while private text may still
  be queued or sounding, `CANCEL self` silences it — a PIN read into headphones does not go
  on through the loudspeaker.
- `"control": "pause"` / `"resume"` (a `speech` message without text: the two-finger tap)
  pauses and resumes: `PAUSE self`, `RESUME self`. A new focus while paused cancels and resumes before
  it speaks; an announcement waits in the paused queue.
"""
import re

# Matched whole (fullmatch): a pattern's "$" also matches before a final line break, which
# would carry "de\n" into a command line.
LANGUAGE = re.compile(r"[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,7}")


def command(line):
    return ("command", line)


def speak(text, private=False):
    return ("speak", text, private)


class Speaker:
    """The state of one SSIP connection and of the headphones, and the rules above."""

    def __init__(self, outputs=None, warn=lambda text: None):
        self.outputs = None if outputs is None else set(outputs)   # None: every output's speech
        self.warn = warn
        self.plugged = {}               # output -> headphones plugged, as touchd last said
        self.connected = False
        self.reset()

    def reset(self):
        """Forget the connection's settings (a new SSIP connection has none of ours)."""
        self.defaults = {"language": None, "rate": None}
        self.language = self.rate = None
        self.paused = False
        self.private_queued = False     # private text sent since the last CANCEL self

    @staticmethod
    def greeting(user):
        """The commands that open a connection, before `GET LANGUAGE` and `GET RATE`: the
        client's name (user:client:component, ssip.info: letters, digits, - and _ only) and the
        priority every utterance has."""
        user = re.sub(r"[^A-Za-z0-9_-]", "_", user or "unknown")
        return [command("SET self CLIENT_NAME %s:touchd:speak" % user), command("SET self PRIORITY message")]

    def begin(self, language, rate):
        """A new connection with these server defaults (None when it did not say)."""
        self.reset()
        self.connected = True
        self.defaults = {"language": language if self._language_ok(language) else None,
                         "rate": rate if self._rate_ok(rate) else None}
        self.language, self.rate = self.defaults["language"], self.defaults["rate"]

    def end(self):
        self.connected = False

    # -- touchd's messages ---------------------------------------------------------------------
    def handle(self, msg):
        """The steps one of touchd's messages asks for (a list, often empty)."""
        kind = msg.get("type")
        if kind == "speech":
            return self.speech(msg)
        if kind == "headphones":
            return self.headphones(msg.get("output"), msg.get("plugged") is True)
        if kind == "snapshot" and isinstance(msg.get("headphones"), list):
            return self.headphones_snapshot(msg["headphones"])
        return []

    def _ours(self, output):
        return self.outputs is None or output in self.outputs

    def speech(self, msg):
        output = msg.get("output")
        if not self._ours(output):
            return []
        text = msg.get("text")
        if not isinstance(text, str):
            if msg.get("control") in ("pause", "resume"):
                return self._pause(msg["control"] == "pause")
            self.warn("a speech message on output %r with neither text nor a control (pause, resume); ignored" % output)
            return []
        private = msg.get("private") is True
        if private and not self.plugged.get(output):
            self.warn("private text on output %r not spoken: no headphones plugged in there" % output)
            return []
        if not text.strip():
            return []
        steps = []
        if msg.get("interrupt") is True:
            steps.append(command("CANCEL self"))
            self.private_queued = False
            if self.paused:
                steps.append(command("RESUME self"))
                self.paused = False
        language = self._wanted("language", msg.get("language"), self._language_ok)
        if language is not None and language != self.language:
            steps.append(command("SET self LANGUAGE %s" % language))
            self.language = language
        rate = self._wanted("rate", msg.get("rate"), self._rate_ok)
        if rate is not None and rate != self.rate:
            steps.append(command("SET self RATE %d" % rate))
            self.rate = rate
        steps.append(speak(text, private))
        self.private_queued = self.private_queued or private
        return steps

    def _wanted(self, key, value, ok):
        if value is None:
            return self.defaults[key]
        if ok(value):
            return value
        self.warn("a speech message's %s %r is not usable (%s); the default is used" % (
            key, value, "a language tag such as en or de-CH" if key == "language" else "an integer from -100 to 100"))
        return self.defaults[key]

    @staticmethod
    def _language_ok(value):
        return isinstance(value, str) and len(value) <= 35 and LANGUAGE.fullmatch(value) is not None

    @staticmethod
    def _rate_ok(value):
        return isinstance(value, int) and not isinstance(value, bool) and -100 <= value <= 100

    def _pause(self, pause):
        if pause == self.paused:
            return []
        self.paused = pause
        return [command("PAUSE self" if pause else "RESUME self")]

    def headphones(self, output, plugged):
        was = self.plugged.get(output, False)
        self.plugged[output] = plugged
        if was and not plugged and self.private_queued and self._ours(output):
            self.private_queued = False
            return [command("CANCEL self")]     # a pause the user asked for stays
        return []

    def headphones_snapshot(self, entries):
        """The snapshot's `headphones` ([{"output", "plugged"}]): the state after a (re)connect;
        an output it does not list has none plugged."""
        steps = []
        listed = {}
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("output"), str):
                listed[entry["output"]] = entry.get("plugged") is True
        for output in set(self.plugged) | set(listed):
            steps += self.headphones(output, listed.get(output, False))
        return steps
