"""speaker.py's rules with plain values (no socket), and ssip.py's pieces: escaping, addresses,
and a connection whose server goes away mid-command (python3-speechd's client hangs there,
which is why ssip.py exists: the last test shows it)."""
import os
import socket
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speechrig import FakeSSIP  # noqa: E402
from support import TempDirTest  # noqa: E402

from touchd_speak import ssip  # noqa: E402
from touchd_speak.speaker import Speaker  # noqa: E402


def speech(text, interrupt=True, output="main", **extra):
    return dict({"type": "speech", "output": output, "text": text, "interrupt": interrupt}, **extra)


def lines(steps):
    return [s[1] if s[0] == "command" else "SPEAK " + s[1] for s in steps]


class Rules(unittest.TestCase):
    def speaker(self, language="en", rate=0, **kwargs):
        self.warnings = []
        s = Speaker(warn=self.warnings.append, **kwargs)
        s.begin(language, rate)
        return s

    def test_focus_interrupts_and_announcement_queues(self):
        s = self.speaker()
        self.assertEqual(lines(s.handle(speech("A"))), ["CANCEL self", "SPEAK A"])
        self.assertEqual(lines(s.handle(speech("B", interrupt=False))), ["SPEAK B"])
        self.assertEqual(lines(s.handle(speech("C", interrupt="yes"))), ["SPEAK C"], "only true interrupts")

    def test_language_and_rate_only_when_they_change_and_back_to_the_defaults(self):
        s = self.speaker(language="fr", rate=5)
        self.assertEqual(lines(s.handle(speech("A", language="fr", rate=5))), ["CANCEL self", "SPEAK A"])
        self.assertEqual(lines(s.handle(speech("B", language="de-CH", rate=-30, interrupt=False))),
                         ["SET self LANGUAGE de-CH", "SET self RATE -30", "SPEAK B"])
        self.assertEqual(lines(s.handle(speech("C", language="de-CH", rate=-30, interrupt=False))), ["SPEAK C"])
        self.assertEqual(lines(s.handle(speech("D", interrupt=False))),
                         ["SET self LANGUAGE fr", "SET self RATE 5", "SPEAK D"])

    def test_unknown_defaults_keep_the_last_setting(self):
        s = self.speaker(language=None, rate=None)
        self.assertEqual(lines(s.handle(speech("A", language="it", interrupt=False))),
                         ["SET self LANGUAGE it", "SPEAK A"])
        self.assertEqual(lines(s.handle(speech("B", interrupt=False))), ["SPEAK B"])

    def test_values_that_could_reach_a_command_line(self):
        s = self.speaker()
        # "en\n": a pattern's $ matches before a final line break, and Connection.command()
        # raised ValueError on the line, out of the message callback: touchd-speak died.
        for bad in ["en\nQUIT", "en\n", "de-CH\n", "e", "en_US", "", "x" * 40, 12]:
            self.assertEqual(lines(s.handle(speech("A", language=bad, interrupt=False))), ["SPEAK A"], bad)
        for bad in [100.5, -101, True, "50"]:
            self.assertEqual(lines(s.handle(speech("A", rate=bad, interrupt=False))), ["SPEAK A"], bad)
        self.assertEqual(len(self.warnings), 12)
        self.assertEqual(lines(s.handle(speech("A", rate=-100, language="zh-Hant-TW", interrupt=False))),
                         ["SET self LANGUAGE zh-Hant-TW", "SET self RATE -100", "SPEAK A"])

    def test_private_text_needs_headphones_and_is_cut_when_they_go(self):
        s = self.speaker()
        self.assertEqual(s.handle(speech("1", private=True)), [])
        self.assertEqual(s.handle({"type": "headphones", "output": "main", "plugged": True}), [])
        self.assertEqual(lines(s.handle(speech("2", private=True))), ["CANCEL self", "SPEAK 2"])
        self.assertEqual(s.handle(speech("3", private=True, output="side")), [], "plugged into another output")
        self.assertEqual(lines(s.handle({"type": "headphones", "output": "main", "plugged": False})), ["CANCEL self"])
        self.assertEqual(s.handle({"type": "headphones", "output": "main", "plugged": False}), [])
        s.handle({"type": "headphones", "output": "main", "plugged": True})
        s.handle(speech("public"))
        self.assertEqual(s.handle({"type": "headphones", "output": "main", "plugged": False}), [],
                         "nothing private queued since the last cancel: nothing to cut")

    def test_a_focus_after_private_text_clears_what_a_pull_would_cut(self):
        s = self.speaker()
        s.handle({"type": "headphones", "output": "main", "plugged": True})
        s.handle(speech("4", private=True))
        s.handle(speech("public focus"))
        self.assertEqual(s.handle({"type": "headphones", "output": "main", "plugged": False}), [])

    def test_snapshot_gives_the_headphones(self):
        s = self.speaker()
        s.handle({"type": "snapshot", "headphones": [{"output": "main", "plugged": True}]})
        self.assertEqual(lines(s.handle(speech("5", private=True))), ["CANCEL self", "SPEAK 5"])
        self.assertEqual(lines(s.handle({"type": "snapshot", "headphones": []})), ["CANCEL self"],
                         "an output the snapshot does not list has none plugged")
        self.assertEqual(s.handle(speech("6", private=True)), [])

    def test_pause_and_resume(self):
        s = self.speaker()
        pause = {"type": "speech", "output": "main", "control": "pause"}
        resume = {"type": "speech", "output": "main", "control": "resume"}
        self.assertEqual(lines(s.handle(pause)), ["PAUSE self"])
        self.assertEqual(s.handle(pause), [])
        self.assertEqual(lines(s.handle(speech("A", interrupt=False))), ["SPEAK A"])
        self.assertEqual(lines(s.handle(resume)), ["RESUME self"])
        self.assertEqual(s.handle(resume), [], "RESUME when not paused is an SSIP error: never sent")
        s.handle(pause)
        self.assertEqual(lines(s.handle(speech("B"))), ["CANCEL self", "RESUME self", "SPEAK B"])

    def test_outputs_and_odd_messages(self):
        s = self.speaker(outputs=["main"])
        self.assertEqual(s.handle(speech("A", output="side")), [])
        self.assertEqual(s.handle(speech("   ")), [])
        self.assertEqual(s.handle({"type": "speech", "output": "main"}), [])
        self.assertEqual(s.handle({"type": "frame"}), [])
        self.assertEqual(self.warnings, ["a speech message on output 'main' with neither text nor a control (pause, resume); ignored"])

    def test_greeting(self):
        self.assertEqual(lines(Speaker.greeting("kiosk user:1")),
                         ["SET self CLIENT_NAME kiosk_user_1:touchd:speak", "SET self PRIORITY message"])


class Wire(TempDirTest):
    def test_escape(self):
        self.assertEqual(ssip.escape("a\n.b\r\n..c\rd.\x00e"), b"a\r\n..b\r\n...c\r\nd. e\r\n.\r\n")
        self.assertEqual(ssip.escape("."), b"..\r\n.\r\n")

    def test_addresses(self):
        env = {"XDG_RUNTIME_DIR": "/run/user/1000"}
        self.assertEqual(ssip.address(env), (socket.AF_UNIX, "/run/user/1000/speech-dispatcher/speechd.sock",
                                             "unix_socket:/run/user/1000/speech-dispatcher/speechd.sock"))
        self.assertEqual(ssip.address({"SPEECHD_ADDRESS": "inet_socket:localhost:6561"})[:2],
                         (socket.AF_INET, ("localhost", 6561)))
        self.assertEqual(ssip.parse_address("inet_socket:")[1], ("127.0.0.1", 6560))
        for bad in ["tcp:x", "unix_socket:", "inet_socket:h:0", "inet_socket:h:port"]:
            with self.assertRaises(ValueError, msg=bad):
                ssip.parse_address(bad)

    def test_a_server_gone_mid_command_is_an_error_not_a_hang(self):
        server = FakeSSIP(self.path("s.sock"))
        self.addCleanup(server.stop)
        server.die_on = "SPEAK"
        conn = ssip.Connection(socket.AF_UNIX, self.path("s.sock"), timeout=1.0)
        self.assertEqual(conn.command("GET RATE"), (251, ["0"]))
        with self.assertRaises(ssip.Refused):
            conn.command("BOGUS")
        with self.assertRaisesRegex(ssip.SSIPError, "speech-dispatcher closed the connection"):
            conn.speak("hello")
        self.assertEqual(conn.fileno(), -1)

    def test_python3_speechd_hangs_there(self):
        """Why ssip.py is not python3-speechd: its SSIPClient.speak() waits for the reply on a
        semaphore nobody releases once the server has gone. If this starts failing, Debian's
        module no longer hangs and could be used instead."""
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import speechd
        except ImportError:
            self.skipTest("no python3-speechd")
        server = FakeSSIP(self.path("s.sock"))
        self.addCleanup(server.stop)
        server.die_on = "SPEAK"
        client = speechd.SSIPClient("t", address="unix_socket:" + self.path("s.sock"), autospawn=False)
        done = threading.Event()
        threading.Thread(target=lambda: (client.speak("hello"), done.set()), daemon=True).start()
        self.assertFalse(done.wait(3), "speechd's speak() returned after its server went away")


if __name__ == "__main__":
    unittest.main()
