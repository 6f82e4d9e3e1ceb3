"""touchd-speak with the real speech-dispatcher and espeak-ng (Debian's speech-dispatcher,
speech-dispatcher-espeak-ng, espeak-ng; sox measures): the server is started by touchd-speak's
autospawn with a user config in a temporary $HOME whose ALSA device is a `file` PCM (no sound
card here), so each utterance's audio lands in one raw file, which grows by that utterance.
Each is cut out, made a WAV and measured with sox — its length, its loudness — and kept with
its spectrogram under .build/artefacts/speech/. A fake touchd sends the messages."""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speechrig import SPEAK_PROGRAM, FakeTouchd, SpeakProcess, wait_for  # noqa: E402
from support import REPO, TempDirTest  # noqa: E402

ARTEFACTS = os.path.join(REPO, ".build", "artefacts", "speech")
MISSING = [p for p in ("speech-dispatcher", "sox", "soxi") if shutil.which(p) is None]
if not os.path.exists("/usr/lib/speech-dispatcher-modules/sd_espeak-ng"):
    MISSING.append("speech-dispatcher-espeak-ng")

SPEECHD_CONF = """\
LogLevel 3
LogDir "{log}"
DefaultLanguage "en"
DefaultRate 0
AudioOutputMethod "alsa"
AudioALSADevice "touchdfile"
AddModule "espeak-ng" "sd_espeak-ng" "espeak-ng.conf"
DefaultModule espeak-ng
"""
# ALSA's file plugin: what is played is written to the file (appended: the server keeps the
# device open between utterances), the null device takes it. %r %c %b: rate, channels, bits.
ASOUNDRC = """\
pcm.touchdfile {{
    type file
    slave.pcm "null"
    file "{out}/speech-%r-%c-%b.raw"
    format "raw"
}}
"""


def speech(text, interrupt=False, **extra):
    return dict({"type": "speech", "output": "main", "text": text, "interrupt": interrupt}, **extra)


@unittest.skipIf(MISSING, "not installed: %s (scripts/deps test)" % ", ".join(MISSING))
class RealSpeech(TempDirTest):
    def setUp(self):
        super().setUp()
        home, self.run_dir, self.out = self.path("home"), self.path("run"), self.path("out")
        conf = os.path.join(home, ".config", "speech-dispatcher")
        os.makedirs(os.path.join(conf, "modules"))
        os.makedirs(self.out)
        os.makedirs(self.path("log"))
        os.mkdir(self.run_dir, 0o700)
        with open(os.path.join(conf, "speechd.conf"), "w") as f:
            f.write(SPEECHD_CONF.format(log=self.path("log")))
        shutil.copy("/etc/speech-dispatcher/modules/espeak-ng.conf", os.path.join(conf, "modules"))
        with open(os.path.join(home, ".asoundrc"), "w") as f:
            f.write(ASOUNDRC.format(out=self.out))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPEECHD_", "XDG_"))}
        env.update(HOME=home, XDG_RUNTIME_DIR=self.run_dir)
        self.env = env
        self.addCleanup(self.stop_server)
        os.makedirs(ARTEFACTS, exist_ok=True)

    def stop_server(self):
        for pidfile in glob.glob(os.path.join(self.run_dir, "speech-dispatcher", "pid", "*.pid")):
            try:
                with open(pidfile) as f:
                    os.kill(int(f.read().strip()), signal.SIGTERM)
            except (OSError, ValueError):
                pass

    def raw(self):
        files = glob.glob(os.path.join(self.out, "speech-*.raw"))
        self.assertLessEqual(len(files), 1, "one audio format for every utterance: %r" % files)
        return files[0] if files else None

    def size(self):
        raw = self.raw()
        return os.path.getsize(raw) if raw else 0

    def settle(self, before, timeout=30):
        """The file's size once it has grown past before and stayed the same for 1.5 s."""
        end = time.monotonic() + timeout
        last, since = self.size(), time.monotonic()
        while time.monotonic() < end:
            time.sleep(0.1)
            now = self.size()
            if now != last:
                last, since = now, time.monotonic()
            elif now > before and time.monotonic() - since >= 1.5:
                return now
        self.fail("no audio within %g s (the file has %d bytes, had %d)" % (timeout, last, before))

    def cut(self, start, end, name):
        """Bytes start..end of the raw file as NAME.wav; returns (seconds, RMS amplitude)."""
        raw = self.raw()
        rate, channels, bits = map(int, re.search(r"speech-(\d+)-(\d+)-(\d+)\.raw$", raw).groups())
        piece = self.path(name + ".raw")
        with open(raw, "rb") as f, open(piece, "wb") as g:
            f.seek(start)
            g.write(f.read(end - start))
        wav = os.path.join(ARTEFACTS, name + ".wav")
        subprocess.run(["sox", "-t", "raw", "-r", str(rate), "-e", "signed", "-b", str(bits), "-c", str(channels),
                        piece, wav], check=True, timeout=60)
        seconds = float(subprocess.run(["soxi", "-D", wav], capture_output=True, text=True, check=True,
                                       timeout=60).stdout)
        stat = subprocess.run(["sox", wav, "-n", "stat"], capture_output=True, text=True, timeout=60).stderr
        rms = float(re.search(r"RMS\s+amplitude:\s+([0-9.]+)", stat).group(1))
        subprocess.run(["sox", wav, "-n", "spectrogram", "-x", "600", "-y", "200", "-t", name,
                        "-o", os.path.join(ARTEFACTS, name + ".png")], check=True, timeout=60)
        return seconds, rms

    def test_audio_for_each_utterance(self):
        touchd = FakeTouchd(self.path("touchd.sock"))
        self.addCleanup(self._stop, touchd)
        speak = SpeakProcess([SPEAK_PROGRAM, "--socket", self.path("touchd.sock"), "--verbose"],
                             self.path("speak.log"), env=self.env)
        self.addCleanup(speak.stop)
        address = "unix_socket:%s/speech-dispatcher/speechd.sock" % self.run_dir
        speak.wait_log("speaking through speech-dispatcher at " + address, 40)     # autospawned
        wait_for(lambda: touchd.subscribed, 10, "touchd-speak to subscribe")
        utterances = [
            ("coffee", speech("Coffee, large, button", interrupt=True)),
            ("kaffee-de", speech("Kaffee, groß, Taste", language="de")),
            ("ticket-slow", speech("Your ticket is printed", rate=-60)),
            ("ticket-fast", speech("Your ticket is printed", rate=60)),
            ("announcement", speech("Order twelve is ready at the counter")),
        ]
        measured = {}
        size = self.size()
        for name, msg in utterances:
            touchd.publish(msg)
            after = self.settle(size)
            measured[name] = self.cut(size, after, name)
            size = after
        report = ", ".join("%s %.2f s (RMS %.3f)" % (n, s, r) for n, (s, r) in measured.items())
        sys.stderr.write("\n  audio: %s\n  " % report)
        for name, (seconds, rms) in measured.items():
            self.assertGreater(seconds, 0.4, "%s: too short for its words (%s)" % (name, report))
            self.assertLess(seconds, 6.0, "%s: longer than its words (%s)" % (name, report))
            self.assertGreater(rms, 0.01, "%s: silence (%s)" % (name, report))
        self.assertGreater(measured["ticket-slow"][0], 1.5 * measured["ticket-fast"][0],
                           "SET RATE -60 against 60 (%s)" % report)

        # Private text: nothing without headphones, audio with them.
        touchd.publish(speech("PIN digit 5", interrupt=True, private=True))
        time.sleep(3)
        self.assertEqual(self.size(), size, "private text spoken with no headphones plugged in")
        touchd.publish({"type": "headphones", "output": "main", "plugged": True},
                       speech("PIN digit 5", interrupt=True, private=True))
        after = self.settle(size)
        seconds, rms = self.cut(size, after, "private-with-headphones")
        self.assertGreater(seconds, 0.4)
        log = speak.log()
        self.assertIn("spoke 'Coffee, large, button'", log)
        self.assertIn("spoke private text", log)
        self.assertNotIn("PIN digit", log)


if __name__ == "__main__":
    unittest.main()
