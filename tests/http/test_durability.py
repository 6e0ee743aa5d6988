"""test_durability.py — acknowledged = durable, on a real full file system.

The database lives on a tmpfs the test mounts (as root) and then shrinks to just above what it
holds, so submissions fill it. Every answer is either 201 with an id or the JSON error of a
failed commit (507 storage_full); /health reports the failure while it lasts and recovers when
space is freed. The stack is then killed outright (SIGKILL, no clean shutdown), the database
files are copied off the tmpfs, and a fresh stack on the copy must return every acknowledged
submission — and hold nothing that was not acknowledged. The tmpfs is always unmounted.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import REPO, Stack, leftover_processes

TRIAL = "03-depression-suicidal-ideation"
PAGE = 4096


def used_bytes(path):
    st = os.statvfs(path)
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def reference_note():
    with open(os.path.join(REPO, "tests", "fixtures", "notes", TRIAL, "reference.txt"), encoding="utf-8") as f:
        return f.read()


class FullDisk(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("mounting a tmpfs needs root (CI runs as root)")
        cls.mnt = tempfile.mkdtemp(prefix="scribe-full-disk-")
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0700", "scribe-full-disk", cls.mnt], check=True)

    @classmethod
    def tearDownClass(cls):
        if subprocess.run(["umount", cls.mnt]).returncode != 0:
            subprocess.run(["umount", "-l", cls.mnt])
        os.rmdir(cls.mnt)

    def resize(self, size):
        subprocess.run(["mount", "-o", f"remount,size={size}", self.mnt], check=True)

    def test_every_acknowledged_submission_survives_a_full_disk_and_a_crash(self):
        stack = Stack(workers=2, read_workers=1, db_path=os.path.join(self.mnt, "test.db")).start()
        copy = None
        try:
            self.assertEqual(stack.request("GET", "/health").json()["storage"], {"ok": True})
            # Leave room for a few submissions only (each stores the note and its result).
            self.resize((used_bytes(self.mnt) // PAGE + 96) * PAGE)
            note = reference_note() + "\n" + "Plan reviewed with the patient. " * 60
            acked, refused = [], []
            for i in range(60):
                r = stack.submit(TRIAL, "Full Disk", f"{note}\nRun {i}.")
                if r.status == 201:
                    acked.append(r.json()["id"])
                else:
                    refused.append((r.status, r.headers.get("content-type"), r.json()))
            self.assertGreater(len(acked), 0, "nothing fitted: the tmpfs was sized too small")
            self.assertGreater(len(refused), 0, "the disk never filled")
            for status, content_type, body in refused:
                self.assertEqual((status, content_type, body), (507, "application/json", {"error": {
                    "code": "storage_full",
                    "message": "the database's disk is full; the submission was not stored"}}))

            health = stack.request("GET", "/health")
            self.assertEqual(health.status, 503)
            body = health.json()
            self.assertIs(body["ok"], False)
            self.assertEqual({k: body["storage"][k] for k in ("ok", "code", "error")},
                             {"ok": False, "code": "storage_full", "error": "database or disk is full"})
            self.assertRegex(body["storage"]["failed_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
            self.assertIn("submission not stored: database or disk is full", stack.read_log())

            # Space again: the next submission is stored and /health recovers.
            self.resize("64m")
            r = stack.submit(TRIAL, "Full Disk", "Sertraline 50 mg daily. After the disk was freed.")
            self.assertEqual(r.status, 201)
            acked.append(r.json()["id"])
            health = stack.request("GET", "/health")
            self.assertEqual((health.status, health.json()["storage"]), (200, {"ok": True}))

            # A crash: no clean shutdown, no checkpoint. Then the files, as they are, elsewhere.
            stack.kill()
            self.assertEqual(leftover_processes(grace=5), [])
            copy = tempfile.mkdtemp(prefix="scribe-after-crash-")
            for name in os.listdir(self.mnt):
                if name.startswith("test.db"):
                    shutil.copy(os.path.join(self.mnt, name), copy)
        finally:
            stack.cleanup()

        again = Stack(workers=1, read_workers=1, db_path=os.path.join(copy, "test.db")).start()
        try:
            for sid in acked:
                r = again.request("GET", f"/api/submissions/{sid}")
                self.assertEqual(r.status, 200, sid)
                self.assertEqual(r.json()["id"], sid)
            with again.db() as db:
                stored = {row[0] for row in db.execute("SELECT id FROM submissions")}
                self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
            self.assertEqual(stored, set(acked), "stored exactly what was acknowledged")
            print(f"\n  {len(acked)} acknowledged and stored, {len(refused)} refused with 507", flush=True)
        finally:
            again.stop()
            again.cleanup()
            shutil.rmtree(copy, ignore_errors=True)


def tearDownModule():
    left = leftover_processes()
    if left:
        raise AssertionError(f"processes left behind by the suite: {left}")


if __name__ == "__main__":
    unittest.main()
