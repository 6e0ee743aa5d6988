"""test_render_audio.py — scripts/render_audio and the recordings it committed (corpus/audio).

    Manifest      the committed manifests against their files and trials (python3 only)
    Reading       how the script reads YAML literal blocks, speaker labels and units (python3 only)
    Determinism   renders the fixture dialogue twice and compares the bytes (flite, sox, opusenc)

Fixture: tests/fixtures/audio — 01 a three-speaker dialogue with a fresh recording, 02 a
recording rendered before its text was edited (stale), 03 a trial without a recording.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from importlib.machinery import SourceFileLoader

REPO = os.environ.get("SCRIBE_REPO") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "render_audio")
FIXTURE = os.path.join(REPO, "tests", "fixtures", "audio")
render_audio = SourceFileLoader("render_audio", SCRIPT).load_module()


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=100)


def manifest(audio_dir):
    with open(os.path.join(audio_dir, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


class Manifest(unittest.TestCase):
    def test_corpus_recordings_match_their_files(self):
        r = run("--check")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "13 passed, 0 failed\n", ""))

    def test_sizes_and_durations_by_hand(self):
        # The same facts --check verifies, computed here independently of it.
        audio = os.path.join(REPO, "corpus", "audio")
        entries = manifest(audio)["recordings"]
        self.assertEqual([e["trial_id"] for e in entries], sorted(e["trial_id"] for e in entries))
        for e in entries:
            with open(os.path.join(audio, e["file"]), "rb") as f:
                data = f.read()
            self.assertEqual(hashlib.sha256(data).hexdigest(), e["sha256"], e["file"])
            self.assertEqual(len(data), e["bytes"], e["file"])
            # Ogg Opus: OpusHead's pre-skip (bytes 10-11) and the last page's granule (48 kHz).
            pre_skip = int.from_bytes(data[data.find(b"OpusHead") + 10:][:2], "little")
            last = data.rfind(b"OggS")
            granule = int.from_bytes(data[last + 6:last + 14], "little")
            self.assertEqual(round((granule - pre_skip) / 48000, 3), e["duration_s"], e["file"])
            self.assertTrue(60 < e["duration_s"] < 900, e["file"])
            # 16 kbit/s mono is 2 kB per second of speech, plus Ogg framing.
            self.assertTrue(1_500 < e["bytes"] / e["duration_s"] < 3_000, f"{e['file']}: about 2 kB/s")
            self.assertEqual(len({v["voice"] for v in e["voices"]}), len(e["voices"]), "one voice per speaker")
            self.assertEqual(set(e["renderer"]["packages"]), set(render_audio.PACKAGES))

    def test_fixture_stale_and_missing(self):
        r = run("--check", "--corpus", os.path.join(FIXTURE, "scripts"))
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "1 passed, 1 failed\n")
        self.assertEqual(r.stderr.splitlines(), [
            "render_audio: 03-no-recording: no recording (allowed; run scripts/render_audio to make one)",
            "02-stale-recording: stale: rendered from another encounter text (run scripts/render_audio)",
        ])

    def tampered(self, change):
        """--check's stderr for a copy of the fixture after change(audio_dir, manifest)."""
        root = tempfile.mkdtemp(prefix="render-audio-test-")
        try:
            shutil.copytree(FIXTURE, root, dirs_exist_ok=True)
            audio = os.path.join(root, "audio")
            m = manifest(audio)
            change(audio, m)
            with open(os.path.join(audio, "manifest.json"), "w", encoding="utf-8") as f:
                json.dump(m, f)
            r = run("--check", "--corpus", os.path.join(root, "scripts"))
            self.assertEqual(r.returncode, 1)
            return [line for line in r.stderr.splitlines() if not line.startswith(("render_audio: 03", "02-stale"))]
        finally:
            shutil.rmtree(root)

    def test_tampering_is_caught(self):
        first = manifest(os.path.join(FIXTURE, "audio"))["recordings"][0]
        name = first["file"]

        def flip(audio, m):
            path = os.path.join(audio, name)
            with open(path, "rb") as f:
                data = bytearray(f.read())
            data[5000] ^= 1
            with open(path, "wb") as f:
                f.write(data)
            flip.sha = hashlib.sha256(data).hexdigest()
        self.assertEqual(self.tampered(flip), [f"01-earache-three-voices: {name}: SHA-256 {flip.sha}, the manifest says {first['sha256']}"])

        def longer(audio, m):
            m["recordings"][0]["duration_s"] = 99.5
        self.assertEqual(self.tampered(longer), [f"01-earache-three-voices: {name}: {first['duration_s']} s, the manifest says 99.5 s"])

        def unlisted(audio, m):
            shutil.copy(os.path.join(audio, name), os.path.join(audio, "04-extra.opus"))
        self.assertEqual(self.tampered(unlisted), ["04-extra.opus: not in the manifest"])

        def elsewhere(audio, m):
            m["recordings"][0]["file"] = "../scripts/01-earache-three-voices.yaml"
        self.assertEqual(self.tampered(elsewhere), [
            "01-earache-three-voices: file is '../scripts/01-earache-three-voices.yaml', expected '01-earache-three-voices.opus'",
            f"{name}: not in the manifest"])


class Reading(unittest.TestCase):
    def block(self, header, *lines):
        return render_audio.literal_block(list(lines), int(header[1:2]) if header[1:2].isdigit() else 0,
                                          "".join(c for c in header if c in "+-"))

    def test_literal_blocks_as_yaml_reads_them(self):
        lines = ("  Doctor: Hi.", "", "    indented", "  Patient: Hello.", "", "", "next: key")
        self.assertEqual(self.block("|", *lines), "Doctor: Hi.\n\n  indented\nPatient: Hello.\n")
        self.assertEqual(self.block("|-", *lines), "Doctor: Hi.\n\n  indented\nPatient: Hello.")
        self.assertEqual(self.block("|+", *lines), "Doctor: Hi.\n\n  indented\nPatient: Hello.\n\n\n")
        self.assertEqual(self.block("|4", "      a", "    b", "  c: d"), "  a\nb\n")

    def test_read_trial(self):
        trial_id, text = render_audio.read_trial(os.path.join(FIXTURE, "scripts", "02-stale-recording.yaml"))
        self.assertEqual((trial_id, text), ("02-stale-recording", "Doctor: Any cough or wheeze?\nPatient: No.\n"))
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("id: 01-folded\nencounter_text: >\n  Doctor: Hi.\n")
        try:
            with self.assertRaises(render_audio.Problem) as e:
                render_audio.read_trial(f.name)
            self.assertEqual(str(e.exception), f"{os.path.basename(f.name)}: encounter_text: render_audio reads only "
                             "literal blocks (\"encounter_text: |\"), got '>'")
        finally:
            os.unlink(f.name)

    def test_speaker_labels(self):
        role = render_audio.speaker_role
        self.assertEqual([role(x) for x in ("Doctor", "Dr. Lee", "Nurse Kim", "NP", "Patient", "Pt", "Client")],
                         ["clinician"] * 4 + ["patient"] * 3)
        self.assertEqual([role(x) for x in ("Wife", "Patient's wife", "Mother", "Interpreter")], ["other"] * 4)
        self.assertEqual([role(x) for x in ("Blood pressure", "Plan", "Note", "Patient name")], [None] * 4)

    def test_dialogue(self):
        _, text = render_audio.read_trial(os.path.join(FIXTURE, "scripts", "01-earache-three-voices.yaml"))
        self.assertEqual(render_audio.parse_dialogue(text), [
            ("turn", "Doctor", "clinician", "Hi. What brings you in today?"),
            ("turn", "Patient", "patient", "My right ear hurts. It started on Sunday."),  # the unlabelled line joins
            ("turn", "Mother", "other", "She had a fever of 101 last night. I gave her 1 mg, no, 160 mg of Tylenol."),
            ("direction", None, None, "[The doctor looks in both ears.]"),
            ("turn", "Doctor", "clinician", "The right eardrum is red. Amoxicillin twice a day for ten days."),
        ])
        self.assertEqual(render_audio.parse_dialogue("Welcome to the clinic.\nPatient: Thanks [quietly].\nBP: 120/80\n"), [
            ("turn", "(unlabelled)", "clinician", "Welcome to the clinic."),
            ("turn", "Patient", "patient", "Thanks. BP: 120/80"),
        ])
        with self.assertRaises(render_audio.Problem):
            render_audio.parse_dialogue("[silence]\n\n")

    def test_pronunciations(self):
        table = render_audio.load_pronunciations(os.path.join(REPO, "corpus", "audio", "pronunciations.tsv"))
        say = lambda text: render_audio.speakable(text, table)  # noqa: E731
        self.assertEqual(say("sertraline 50 mg daily, 1 mg at night, 0.5 mg"),
                         "sertraline 50 milligrams daily, 1 milligram at night, 0.5 milligrams")
        self.assertEqual(say("two 200 mg tablets; four of the 2.5 mg tablets"),
                         "two 200 milligram tablets; four of the 2.5 milligram tablets")
        self.assertEqual(say("Synthroid 75 mcg, glucose 98 mg/dL"), "Synthroid 75 micrograms, glucose 98 milligrams per deciliter")
        self.assertEqual(say("an MRI; call or text 988"), "an M R I; call or text 9 8 8")
        self.assertEqual(say("mgmt, 1988, MRIs"), "mgmt, 1988, MRIs")  # whole tokens only

    def test_casting(self):
        casting = render_audio.load_casting(os.path.join(REPO, "corpus", "audio", "casting.tsv"))
        turns = lambda *speakers: [("turn", s, r, "x") for s, r in speakers]  # noqa: E731
        voices, _ = render_audio.cast("01-hypertension-ace-inhibitor-cough", turns(("Doctor", "clinician"), ("Patient", "patient")), casting)
        self.assertEqual(voices, {"Doctor": "slt", "Patient": "rms"})
        voices, _ = render_audio.cast("03-depression-suicidal-ideation", turns(("Doctor", "clinician"), ("Patient", "patient")), casting)
        self.assertEqual(voices, {"Doctor": "rms", "Patient": "slt"})
        voices, _ = render_audio.cast("50-new", turns(("Doctor", "clinician"), ("Nurse", "clinician"), ("Patient", "patient"),
                                                     ("Wife", "other"), ("Son", "other")), casting)
        self.assertEqual(voices, {"Doctor": "slt", "Nurse": "kal16", "Patient": "rms", "Wife": "awb", "Son": "slt_low"})
        with self.assertRaises(render_audio.Problem) as e:
            render_audio.cast("50-new", turns(*[(f"Dr. {n}", "clinician") for n in "ABCDEF"]), casting)
        self.assertEqual(str(e.exception), "50-new: more speakers than voices (5)")

    def test_pauses_are_deterministic_and_bounded(self):
        values = [render_audio.jitter("03-x", i) for i in range(200)]
        self.assertEqual(values, [render_audio.jitter("03-x", i) for i in range(200)])
        self.assertTrue(all(0 <= v <= render_audio.JITTER for v in values))
        self.assertGreater(len(set(values)), 100)  # of 301 possible millisecond values


class Determinism(unittest.TestCase):
    """Same script, text and packages → same bytes (and the committed fixture's, when the
    packages are the versions that rendered it)."""

    def test_render_twice(self):
        trial = "01-earache-three-voices"
        outs = [tempfile.mkdtemp(prefix="render-audio-") for _ in range(2)]
        try:
            for out in outs:
                r = run("--corpus", os.path.join(FIXTURE, "scripts"), "--out", out, trial)
                self.assertEqual(r.returncode, 0, r.stderr)
            files = []
            for out in outs:
                with open(os.path.join(out, f"{trial}.opus"), "rb") as f:
                    files.append(f.read())
            self.assertEqual(files[0], files[1])
            entries = [manifest(out)["recordings"] for out in outs]
            self.assertEqual(entries[0], entries[1])
            committed = manifest(os.path.join(FIXTURE, "audio"))["recordings"][0]
            if entries[0][0]["renderer"] == committed["renderer"]:
                self.assertEqual(entries[0][0], committed)
            else:
                print(f"note: packages differ from the fixture's ({entries[0][0]['renderer']['packages']}); "
                      "compared the two renders only", file=sys.stderr)
            # The duration read from the Ogg pages agrees with opusinfo's.
            info = subprocess.run(["opusinfo", os.path.join(outs[0], f"{trial}.opus")], capture_output=True, text=True).stdout
            minutes, seconds = re.search(r"Playback length: (\d+)m:([\d.]+)s", info).groups()
            self.assertAlmostEqual(int(minutes) * 60 + float(seconds), entries[0][0]["duration_s"], places=2)
        finally:
            for out in outs:
                shutil.rmtree(out)


if __name__ == "__main__":
    unittest.main()
