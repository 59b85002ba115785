"""The golden transcripts (tests/transcripts/, written by tests/tools/transcript.py): every scenario, in English and in
Russian, plays through the real bot and the offline Discord and must give exactly the stored text, so that every
change of wording, of a ping or of a control is seen, and reviewed, as its players see it.

When a change is meant: `python -m tests.tools.transcript all --write` and `... --lang ru --write`, then read the
diff of tests/transcripts/ before committing it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from tests.tools.transcript import LANGUAGES, SCENARIOS, TRANSCRIPTS

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 300.0


def test_every_scenario_has_a_transcript_in_every_language() -> None:
    for lang in LANGUAGES:
        stored = {p.stem for p in (TRANSCRIPTS / lang).glob("*.txt")}
        assert stored == set(SCENARIOS), f"{lang}: stored {sorted(stored)}, scenarios {sorted(SCENARIOS)}"


def test_the_bot_says_what_the_transcripts_say() -> None:
    # One process per language, side by side: discord.py's address of Discord is one per process, so a process plays
    # its scenarios one after the other (about 35 s for all of one language).
    started = time.monotonic()
    runs = {lang: subprocess.Popen([sys.executable, "-m", "tests.tools.transcript", "all", "--lang", lang, "--check"],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for lang in LANGUAGES}
    failures = []
    for lang, run in runs.items():
        try:
            out, err = run.communicate(timeout=max(1.0, TIMEOUT - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            run.kill()
            out, err = run.communicate()
            failures.append(f"[{lang}] still running after {TIMEOUT:.0f} s\n{err[-3000:]}")
            continue
        if run.returncode == 1 and out:
            failures.append(f"[{lang}] the bot's messages differ from the transcripts (to accept the change: "
                            f"python -m tests.tools.transcript all --lang {lang} --write):\n{out}")
        elif run.returncode != 0:
            failures.append(f"[{lang}] the transcript tool failed (exit {run.returncode}):\n{err[-5000:]}")
    assert not failures, "\n\n".join(failures)
