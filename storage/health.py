"""Is the database file usable? Checks before SQLite touches it, the background integrity check, and damage named.

Before the bot opens its database, `check_database_file` looks at the path with plain file operations: a
directory, a file that is not SQLite's, one cut short, or a place the bot may not write is refused with one line
saying what to do, and nothing is created or changed (SQLite would otherwise add -wal and -shm files, or initialise
the file). Damage inside a sound-looking file shows up later: `quick_check` (SQLite's `PRAGMA quick_check`, on its
own read-only connection in a worker thread, so the bot keeps serving) finds it after start, and any statement
that meets a damaged page raises `DamagedDatabaseError`, which names the file and what to do.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import struct
import threading
from pathlib import Path
from urllib.parse import quote

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100
# SQLite's primary result codes meaning the file's content is broken (SQLITE_CORRUPT, SQLITE_NOTADB); extended
# codes (SQLITE_CORRUPT_INDEX, ...) carry them in their low byte.
_DAMAGE_CODES = (11, 26)
RESTORE_HINT = ("keep a copy of the file, then restore the latest backup with the bot stopped "
                "(python -m bot.backup restore FILE)")
PRIVATE_FILE = 0o600  # the database, its backups and archives: read and written by their owner only
PRIVATE_DIRECTORY = 0o700


class UnusableDatabaseError(Exception):
    """The database cannot be used as it is; the message is one line for the admin: what is wrong, what to do."""


class DamagedDatabaseError(UnusableDatabaseError):
    """SQLite found the database file damaged (a malformed page, a file that is not a database)."""


def is_damage(exc: BaseException) -> bool:
    """Whether `exc` is SQLite saying the file's content is broken (not busy, locked, full or read-only)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.DatabaseError) and isinstance(code, int) and (code & 0xFF) in _DAMAGE_CODES


def damaged(path: Path, exc: BaseException) -> DamagedDatabaseError:
    """The error to raise when a statement met damage in the database at `path`."""
    return DamagedDatabaseError(f"the database {path.absolute()} is damaged ({exc}); {RESTORE_HINT}.")


def check_database_file(path: Path) -> None:
    """Refuse, with one line, a database path the bot cannot use; read-only, changes nothing.

    A missing file is fine when its directory can be created and written; an empty file is a new database."""
    path = path.absolute()  # the admin sees which file, whatever the bot's working directory
    if path.is_dir():
        raise UnusableDatabaseError(
            f"{path} is a directory; set DATABASE_PATH to a file in it, e.g. {path / 'bot.sqlite3'}.")
    directory = _existing_parent(path)
    if not directory.is_dir():
        raise UnusableDatabaseError(
            f"{directory} is not a directory, so the database {path} cannot be made there; "
            "set DATABASE_PATH to another path.")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UnusableDatabaseError(
            f"cannot write in {directory}: the bot keeps its database and SQLite's -wal and -shm files there; "
            "give the user that runs the bot write access to it, or set DATABASE_PATH to a writable place.")
    if not path.exists():
        return
    if not os.access(path, os.R_OK | os.W_OK):
        raise UnusableDatabaseError(
            f"{path} cannot be read and written by this user; give the user that runs the bot access to it (chown).")
    try:
        with path.open("rb") as file:
            header = file.read(HEADER_SIZE)
    except OSError as exc:
        raise UnusableDatabaseError(f"cannot read {path}: {exc.strerror or exc}.") from None
    if not header:
        return  # SQLite makes an empty file a new database
    if not header.startswith(SQLITE_HEADER):
        raise UnusableDatabaseError(
            f"{path} is not a SQLite database (it lacks SQLite's header); set DATABASE_PATH to the bot's database, "
            "or move this file away to start a new one. Nothing was changed.")
    _check_length(path, header)


def _existing_parent(path: Path) -> Path:
    """The nearest directory (or other file) on the way to `path` that exists: where it would be created."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return parent


def _check_length(path: Path, header: bytes) -> None:
    """A file shorter than its header says was cut short (a partial copy, a disk that ran full)."""
    cut = f"{path} is cut short"
    if len(header) < HEADER_SIZE:
        raise DamagedDatabaseError(f"{cut} ({len(header)} bytes, less than SQLite's header); {RESTORE_HINT}.")
    (page_size,) = struct.unpack(">H", header[16:18])
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise DamagedDatabaseError(f"{path} has a damaged header (page size {page_size}); {RESTORE_HINT}.")
    (change_counter, pages) = struct.unpack(">II", header[24:32])
    (valid_for,) = struct.unpack(">I", header[92:96])
    # The page count in the header is SQLite's only if it was written with the current change counter; and while
    # a write-ahead log (or a rollback journal left by a crash) holds pages, the file itself may lawfully differ
    # until SQLite replays it.
    pending = [Path(f"{path}{suffix}") for suffix in ("-wal", "-journal")]
    if pages == 0 or valid_for != change_counter or any(p.exists() and p.stat().st_size > 0 for p in pending):
        return
    size = path.stat().st_size
    if size < pages * page_size:
        raise DamagedDatabaseError(
            f"{cut}: its header counts {pages * page_size} bytes, the file has {size}; {RESTORE_HINT}.")


# ----- the integrity check ---------------------------------------------------------------------------------------
class IntegrityCheck:
    """SQLite's `PRAGMA quick_check` of a database file on its own read-only connection; `interrupt` stops it.

    quick_check reads every page (b-tree structure, records, free list) but skips comparing indexes with their
    tables: the whole file is read, so the bot runs it in the background after it starts (tests/tools/big_database.py
    times it on a large file)."""

    def __init__(self, path: Path, max_problems: int = 10) -> None:
        self.path = path
        self.max_problems = max_problems
        self._conn: sqlite3.Connection | None = None
        self._stopped = False
        self._guard = threading.Lock()

    def run(self) -> list[str]:
        """The problems found, [] when the file is sound; `InterruptedError` if interrupted."""
        if str(self.path) == ":memory:":
            return []  # nothing on disk to check
        uri = f"file:{quote(str(self.path.absolute()))}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        with self._guard:
            if self._stopped:
                conn.close()
                raise InterruptedError("integrity check interrupted")
            self._conn = conn
        try:
            rows = conn.execute(f"PRAGMA quick_check({int(self.max_problems)})").fetchall()
        except sqlite3.OperationalError as exc:
            if self._stopped:
                raise InterruptedError("integrity check interrupted") from exc
            raise
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            rows = [(str(exc),)]  # damaged where quick_check itself starts (the schema)
        finally:
            with self._guard:
                self._conn = None
            conn.close()
        problems = [str(row[0]) for row in rows]
        return [] if problems == ["ok"] else problems

    def interrupt(self) -> None:
        with self._guard:
            self._stopped = True
            if self._conn is not None:
                self._conn.interrupt()


def quick_check(path: Path, max_problems: int = 10) -> list[str]:
    """The problems `PRAGMA quick_check` finds in the database at `path`; [] when it is sound."""
    return IntegrityCheck(path, max_problems).run()


async def check_integrity(path: Path, max_problems: int = 10) -> list[str]:
    """`quick_check` in a worker thread; cancelling it interrupts SQLite, so a stop is not held up by the check."""
    check = IntegrityCheck(path, max_problems)
    try:
        return await asyncio.to_thread(check.run)
    except asyncio.CancelledError:
        check.interrupt()
        raise


def integrity_report(path: Path | str, problems: list[str]) -> str:
    """One line for the log: what the integrity check found and what to do."""
    shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
    return f"the database {Path(path).absolute()} is damaged (integrity check: {shown}); {RESTORE_HINT}."


# ----- private files ---------------------------------------------------------------------------------------------
def private_directory(path: Path) -> None:
    """Create the directory `path` (and its missing parents) readable by their owner only; leave existing ones."""
    missing = []
    for parent in (path, *path.parents):
        if parent.exists():
            break
        missing.append(parent)
    path.mkdir(mode=PRIVATE_DIRECTORY, parents=True, exist_ok=True)
    for created in missing:
        created.chmod(PRIVATE_DIRECTORY)  # mkdir's mode is masked by the umask, and parents=True ignores it


def create_private_file(path: Path) -> None:
    """Create `path` empty and owner-only, unless it exists: SQLite then opens it with the mode it already has."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    os.close(fd)
