"""Issue 14, point 7: `python -m bot` warns, in one WARNING line, when `.env` (which holds the token) can be read or
changed by other users of the machine; a private `.env` gives no warning."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_OUR_SETTINGS = ("DISCORD_", "DEV_GUILD", "TURN_", "LOG_", "CHALLENGE_", "DATABASE_PATH")


def _run(cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m bot` with its settings in `cwd`/.env and Discord at a closed port (it stops at once)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OUR_SETTINGS)}
    env = clean | {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "bot"], cwd=cwd, capture_output=True, text=True, timeout=60, env=env)


def test_a_dotenv_others_can_read_is_warned_about(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"DISCORD_TOKEN=abc.def.ghi\nDATABASE_PATH=bot.sqlite3\n"
                      f"DISCORD_API_BASE=http://127.0.0.1:{port}/api/v10\n", encoding="utf-8")
    for mode in (0o644, 0o604, 0o620):
        dotenv.chmod(mode)
        result = _run(tmp_path)
        assert result.returncode == 1  # Discord cannot be reached: the settings were read
        warnings = [line.split(" ", 2)[2] for line in result.stderr.splitlines() if " WARNING " in line]
        assert warnings == [
            f"WARNING __main__: .env can be read or changed by other users of this machine (mode {mode:04o}); it is "
            "where the bot's token belongs, so make it private: chmod 600 .env"]
        assert "abc.def.ghi" not in result.stderr
    for private in (0o600, 0o400):
        dotenv.chmod(private)
        result = _run(tmp_path)
        assert result.returncode == 1
        assert [line for line in result.stderr.splitlines() if " WARNING " in line] == []
