"""touchd-speak against a fake touchd and a fake speech-dispatcher: the exact SSIP it sends for
a sequence of `speech` and `headphones` messages (docs/accessibility.md, "Speech"), the speaker
role refused, and both services missing, dying and coming back. Standard library only."""
import os
import pwd
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speechrig import SPEAK_PROGRAM, FakeSSIP, FakeTouchd, SpeakProcess, wait_for  # noqa: E402
from support import REPO, TempDirTest  # noqa: E402

USER = pwd.getpwuid(os.getuid()).pw_name
GREETING = ["SET self CLIENT_NAME %s:touchd:speak" % USER, "SET self PRIORITY message", "GET LANGUAGE", "GET RATE"]
BINARY = os.path.abspath(os.path.join(REPO, os.environ.get("TOUCHD_BINARY", ".build/debug/touchd")))


def speech(text, interrupt=True, output="main", **extra):
    return dict({"type": "speech", "output": output, "text": text, "interrupt": interrupt}, **extra)


def headphones(plugged, output="main"):
    return {"type": "headphones", "seq": 1, "time": 1.0, "output": output, "plugged": plugged}


class Rig(TempDirTest):
    def start_ssip(self, **kwargs):
        ssip = FakeSSIP(self.path("ssip.sock"), **kwargs)
        self.addCleanup(ssip.stop)
        return ssip

    def start_touchd(self, **kwargs):
        touchd = FakeTouchd(self.path("touchd.sock"), **kwargs)
        self.addCleanup(self._stop, touchd)
        return touchd

    def start_speak(self, *extra, argv=None):
        argv = argv or [SPEAK_PROGRAM]
        speak = SpeakProcess(argv + ["--socket", self.path("touchd.sock"), "--speech",
                                     "unix_socket:" + self.path("ssip.sock"), "--no-spawn", *extra],
                             self.path("speak.log"))
        self.addCleanup(speak.stop)
        return speak

    def subscribed(self, touchd, count=1):
        wait_for(lambda: len(touchd.subscribed) >= count, 10, "touchd-speak to subscribe")


class Sequence(Rig):
    def test_exact_ssip_for_a_session(self):
        ssip, touchd = self.start_ssip(), self.start_touchd()
        speak = self.start_speak("--output", "main")
        self.assertEqual(ssip.wait(4), GREETING)
        self.subscribed(touchd)
        self.assertEqual(touchd.subscribes, [{"types": ["speech", "headphones"], "speaker": True}])
        touchd.publish(
            speech("Coffee, large, button"),                          # a focus: cancels, then speaks
            speech("Kaffee, groß, Taste", language="de"),              # the element's language
            speech("Order 12 is ready", interrupt=False),              # an announcement: queued, back to en
            speech("Tea, button", rate=40),                            # the config's or element's rate
            speech("Side screen", output="side"),                      # not our output
            {"type": "speech", "output": "main", "control": "pause"}, # the two-finger tap
            speech("Queued while paused", interrupt=False),
            speech("Milk, button"),                                    # a focus while paused resumes
            speech("PIN digit 7", private=True),                       # no headphones: not spoken
            headphones(True),
            speech("PIN digit 8", private=True),
            headphones(False),                                         # pulled: private speech cut
            speech(".hidden\n.dotted\r\nlines", interrupt=False),      # SSIP's dot escaping
        )
        expected = GREETING + [
            "CANCEL self", "SPEAK Coffee, large, button",
            "CANCEL self", "SET self LANGUAGE de", "SPEAK Kaffee, groß, Taste",
            "SET self LANGUAGE en", "SPEAK Order 12 is ready",
            "CANCEL self", "SET self RATE 40", "SPEAK Tea, button",
            "PAUSE self",
            "SET self RATE 0", "SPEAK Queued while paused",
            "CANCEL self", "RESUME self", "SPEAK Milk, button",
            "CANCEL self", "SPEAK PIN digit 8",
            "CANCEL self",
            "SPEAK .hidden\n.dotted\nlines",
        ]
        self.assertEqual(ssip.wait(len(expected)), expected)
        self.assertEqual(ssip.raw[-1], b"..hidden\r\n..dotted\r\nlines")
        time.sleep(0.3)
        self.assertEqual(ssip.lines(), expected, "nothing after the last utterance")
        log = speak.log()
        self.assertIn("private text on output 'main' not spoken: no headphones plugged in there", log)
        self.assertNotIn("PIN digit", log)
        self.assertEqual(speak.stop(), 0)
        self.assertEqual(ssip.lines()[-1], "QUIT", "it says goodbye as ssip.info asks")

    def test_headphones_from_the_snapshot(self):
        ssip, touchd = self.start_ssip(), self.start_touchd()
        touchd.headphones = [{"output": "main", "plugged": True}]
        self.start_speak()
        ssip.wait(4)
        self.subscribed(touchd)
        touchd.publish(speech("PIN digit 3", private=True), speech("Side", output="side", interrupt=False))
        self.assertEqual(ssip.wait(7)[4:], ["CANCEL self", "SPEAK PIN digit 3", "SPEAK Side"])

    def test_unusable_language_and_rate_reach_no_command(self):
        ssip, touchd = self.start_ssip(language="fr", rate="10"), self.start_touchd()
        speak = self.start_speak()
        ssip.wait(4)
        self.subscribed(touchd)
        touchd.publish(speech("One", language="en\r\nQUIT"), speech("Two", rate=101, interrupt=False),
                       speech("Three", rate=True, interrupt=False), speech("Four", language="it", rate=-20),
                       speech("Five", language="de\n", interrupt=False))      # it died of this one
        self.assertEqual(ssip.wait(15)[4:], ["CANCEL self", "SPEAK One", "SPEAK Two", "SPEAK Three", "CANCEL self",
                                            "SET self LANGUAGE it", "SET self RATE -20", "SPEAK Four",
                                            "SET self LANGUAGE fr", "SET self RATE 10", "SPEAK Five"])
        log = speak.log()
        self.assertIn("language 'de\\n' is not usable", log)
        self.assertIn("language 'en\\r\\nQUIT' is not usable", log)
        self.assertIn("rate 101 is not usable", log)
        self.assertIn("rate True is not usable", log)


class Services(Rig):
    def test_speaker_role_refused(self):
        ssip, touchd = self.start_ssip(), self.start_touchd(speakers=False)
        speak = self.start_speak()
        self.subscribed(touchd)
        self.assertEqual(touchd.subscribes, [{"types": ["speech", "headphones"], "speaker": True},
                                             {"types": ["speech", "headphones"]}])
        speak.wait_log("touchd did not make this client a speaker (subscribe: speaker: the config's clients.speakers")
        ssip.wait(4)
        touchd.publish(speech("Public text"))
        self.assertEqual(ssip.wait(6)[4:], ["CANCEL self", "SPEAK Public text"])

    def test_speech_dispatcher_missing_then_there(self):
        touchd = self.start_touchd()
        speak = self.start_speak()
        self.subscribed(touchd)
        speak.wait_log("warning: no speech service at unix_socket:%s (No such file or directory): nothing is "
                       "spoken until it comes; trying again" % self.path("ssip.sock"))
        touchd.publish(speech("Lost"), speech("Lost too"))
        time.sleep(0.3)
        ssip = self.start_ssip()
        self.assertEqual(ssip.wait(4), GREETING)
        speak.wait_log("speaking through speech-dispatcher at unix_socket:%s (2 utterance(s) came while it was "
                       "away, not spoken)" % self.path("ssip.sock"))
        touchd.publish(speech("Found"))
        self.assertEqual(ssip.wait(6)[4:], ["CANCEL self", "SPEAK Found"])
        self.assertEqual(speak.log().count("no speech service"), 1, "one warning per outage, not per attempt")

    def test_both_services_come_back(self):
        ssip, touchd = self.start_ssip(), self.start_touchd()
        speak = self.start_speak()
        ssip.wait(4)
        self.subscribed(touchd)
        ssip.kill()
        speak.wait_log("lost speech-dispatcher at unix_socket:%s (speech-dispatcher closed the connection)"
                       % self.path("ssip.sock"))
        ssip = self.start_ssip()
        self.assertEqual(ssip.wait(4), GREETING)
        touchd.kick()                                           # the daemon restarts
        speak.wait_log("touchd went away")
        self.subscribed(touchd, 2)
        touchd.publish(speech("Back"))
        self.assertEqual(ssip.wait(6)[4:], ["CANCEL self", "SPEAK Back"])
        self.assertEqual(touchd.subscribes[-1], {"types": ["speech", "headphones"], "speaker": True})

    def test_a_server_that_dies_mid_command_is_no_hang(self):
        ssip, touchd = self.start_ssip(), self.start_touchd()
        speak = self.start_speak()
        ssip.wait(4)
        self.subscribed(touchd)
        ssip.die_on = "SPEAK"
        touchd.publish(speech("Cut"))
        speak.wait_log("lost speech-dispatcher")
        ssip.kill()
        ssip = self.start_ssip()
        ssip.wait(4)
        touchd.publish(speech("Heard"))
        self.assertEqual(ssip.wait(6)[4:], ["CANCEL self", "SPEAK Heard"])

    def test_a_server_that_never_answers_is_given_up(self):
        ssip, touchd = self.start_ssip(), self.start_touchd()
        speak = self.start_speak()
        ssip.wait(4)
        self.subscribed(touchd)
        ssip.silent = "CANCEL"
        start = time.monotonic()
        touchd.publish(speech("Unanswered"))
        # Given up after its 2 s reply timeout, not never; the bound leaves a loaded 2-core
        # machine room (a hang would be for ever).
        speak.wait_log("no answer from speech-dispatcher within 2 s", 20)
        self.assertLess(time.monotonic() - start, 15)
        ssip.silent = None
        self.assertEqual(ssip.wait(9)[5:], GREETING, "a new connection")

    def test_waits_for_touchd(self):
        ssip = self.start_ssip()
        speak = self.start_speak()
        speak.wait_log("touchd is not listening at %s yet; waiting for it" % self.path("touchd.sock"))
        touchd = self.start_touchd()
        self.subscribed(touchd)
        ssip.wait(4)
        touchd.publish(speech("Late"))
        self.assertEqual(ssip.wait(6)[4:], ["CANCEL self", "SPEAK Late"])


class CommandLine(Rig):
    def test_bad_address(self):
        r = subprocess.run([SPEAK_PROGRAM, "--speech", "tcp:1"], capture_output=True, text=True, timeout=30)
        self.assertEqual((r.returncode, r.stderr), (2, "touchd speak: error: --speech 'tcp:1': expected "
                                                       "unix_socket:PATH or inet_socket:HOST:PORT\n"))

    @unittest.skipUnless(os.path.exists(BINARY), "no touchd binary at %s (TOUCHD_BINARY)" % BINARY)
    def test_touchd_speak_runs_it(self):
        r = subprocess.run([BINARY, "speak", "--version"], capture_output=True, text=True, timeout=30)
        self.assertRegex(r.stdout, r"^touchd-speak [0-9.]+\n$")
        r = subprocess.run([BINARY, "speak", "--speech"], capture_output=True, text=True, timeout=30)
        self.assertEqual((r.returncode, r.stderr.splitlines()[0]), (2, "touchd speak: --speech needs a value"))
        self.assertIn("--no-spawn", subprocess.run([BINARY, "speak", "--help"], capture_output=True, text=True,
                                                   timeout=30).stdout)
        ssip, touchd = self.start_ssip(), self.start_touchd()
        self.start_speak(argv=[BINARY, "speak"])
        self.assertEqual(ssip.wait(4), GREETING)
        self.subscribed(touchd)
        touchd.publish(speech("Through touchd speak"))
        self.assertEqual(ssip.wait(6)[4:], ["CANCEL self", "SPEAK Through touchd speak"])

    @unittest.skipUnless(os.path.exists(BINARY), "no touchd binary at %s (TOUCHD_BINARY)" % BINARY)
    def test_without_touchd_speak(self):
        alone = self.path("touchd")
        shutil.copy(BINARY, alone)
        r = subprocess.run([alone, "speak"], capture_output=True, text=True, timeout=30, env={"PATH": self.tmp})
        self.assertEqual((r.returncode, r.stderr), (1, "touchd speak: no touchd-speak beside %s, in its build tree "
                                                       "(python/touchd-speak) or on PATH; install the touchd-speak "
                                                       "package\n" % os.path.realpath(alone)))


if __name__ == "__main__":
    unittest.main()

